"""What compute derives from a plan's layers besides the capacity figures, and says about them: the alignment chain
from md up to the filesystem and each misalignment (alignment), what a filesystem's own settings cost (fs), the
devices under LVM or the filesystem in a plan without md and their findings (direct). Pure: they read results'
types; compute calls them.
"""
