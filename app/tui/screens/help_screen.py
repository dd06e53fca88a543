"""Help: what the screens do and every key, in one page."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# podplan

Type in the form on the left; the figures on the right follow every keystroke.
A value the plan cannot take is marked in red with the reason, and the last valid
figures stay on screen until the form makes sense again.

## Keys

| key | does |
|---|---|
| tab / shift+tab | next / previous field |
| left / right | step through a choice (◂ ▸); typing a letter jumps to it |
| f1 | this help |
| f2 | the build script (s saves, c copies) |
| f3 | compare pinned variants (l loads one, x unpins, s sweeps) |
| f4 | pin the current plan as a variant |
| f5 | validate a built array with fio (ctrl+r starts, f8 cancels) |
| f6 | sweep every layout of the plan's disks, ranked, Pareto front marked * and layouts with over 1 % yearly loss odds marked !, or losing data to an unreadable sector in most rebuilds marked ~, ranked last (enter loads one into the form, s sorts from the top, w changes the workload) |
| ctrl+f | into the figures of the tab in view: up / down, PgUp / PgDn, home / end scroll them (f8 keeps you there); ctrl+f again goes back to the field you left |
| f8 / shift+f8 | next / previous result tab (Capacity, Alignment, Findings, Perf); alt+1 to alt+4 jump to one |
| f7 | start a new plan from this machine's disks (space selects, a selects every free disk like the highlighted one, c creates the plan); disks in use are marked and not preselected |
| f9 | grow the pod built from this plan: disks to add, RAID5 -> RAID6 or a new array under LVM; every figure before -> after and the steps (f2 shows the grow script, ctrl+s saves it, ctrl+l saves the grown layout) |
| ctrl+s / ctrl+o | save / open a plan file (TOML) |
| ctrl+t | dark / light theme |
| ctrl+j | predict the sections of an fio job file on the Perf tab, beside the suite |
| ctrl+p | command palette: every action by name (the footer shows f9, ctrl+f and ctrl+p from 110 columns) |
| escape | back |
| ctrl+q | quit; with unsaved changes it asks first: s saves (to the plan's file, or asks where) and quits, q quits without saving, escape stays |

## Fields

* **plan name** names the saved file (`NAME.toml`) and the build script, which asks you to type it before it changes anything: letters, digits and `_.+-` only, as in a plan file.
* **size** takes bytes or sizes such as `2TB` (decimal), `1.8TiB` or `512K` (binary); a bare `T` is binary too (`18T` = 18 TiB = 19.79 TB), and the line under it says what was understood.
* **members** empty shares the disks out evenly over the groups, after the spares.
* **chunk**, **stripe size**, **data align** empty use the tools' defaults.

Files are written atomically (temporary file, then rename) and never overwritten
without asking.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)
