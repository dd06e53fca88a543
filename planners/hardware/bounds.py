"""Physical bounds of the hardware figures a plan may give, and the models' shared settings."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

Frozen = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # inf and nan are no measurement

# Physical bounds of the figures a plan may give (inf and nan are refused by every model): they keep
# the arithmetic finite and away from zero. A transfer rate from a kilobyte a second (a dying disk) to
# 10 TB/s (above any link, HBA or CPU path); requests per second from one in 1000 s to a billion;
# hours from half a minute to ten years (a replacement, a rebuild); a request's fixed cost up to 10 s.
MbPerS = Annotated[float, Field(ge=1e-3, le=1e7)]
PerSecond = Annotated[float, Field(ge=1e-3, le=1e9)]
Hours = Annotated[float, Field(ge=0.01, le=87660.0)]
MAX_MICROSECONDS = 1e7
INT32_MAX = 2**31 - 1  # the kernel's int sysctls (speed_limit_min/max)
