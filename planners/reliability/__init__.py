"""Reliability: rebuild time, mean time to data loss, unreadable sectors in a rebuild and the one yearly loss
figure (loss); failing members on purpose, which plans survive it and what the model expects (failure). Pure.
"""
