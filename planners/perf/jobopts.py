"""What podplan does with each fio option: modelled, ignored (with why), or refused (with why).

Decided from fio's HOWTO and options.c. An option is ignored only when the requests that reach
the array (their kind, size, offsets, number in flight and pacing) are the same with it and
without it; one that changes them but that the model cannot follow is refused, for its
section only (planners.perf.jobfile).
"""

from __future__ import annotations

# fio's own second names for options (options.c `.alias`), read as the option they stand for.
ALIASES = {
    "readwrite": "rw",
    "blocksize": "bs",
    "blocksize_range": "bsrange",
    "blocksize_unaligned": "bs_unaligned",
    "blockalign": "ba",
    "io_limit": "io_size",
    "fill_fs": "fill_device",
    "fileoffset": "offset",
    "allrandrepeat": "randrepeat",
    "nr_files": "nrfiles",
    "timeout": "runtime",
    "iomem": "mem",
    "mem_align": "iomem_align",
    "ratemin": "rate_min",
    "ratecycle": "rate_cycle",
    "wait_for_previous": "stonewall",
    "ss": "steadystate",
    "ss_dur": "steadystate_duration",
    "ss_ramp": "steadystate_ramp_time",
    "ss_interval": "steadystate_check_interval",
    "disable_bw": "disable_bw_measurement",
    "iodepth_batch": "iodepth_batch_submit",
    "iodepth_batch_complete": "iodepth_batch_complete_min",
    "log_max_value": "log_window_value",
    "log_unix_epoch": "log_alternate_epoch",
    "data_placement": "dataplacement",
    "fdp_pli": "plids",
    "fdp_pli_select": "plid_select",
    # fio's examples spell `thread` this way; it means the same (threads, not processes).
    "threads": "thread",
}

_REPORTING = "reporting only: it changes what fio prints or logs, not the I/O"
_WHERE = "where and as whom fio's workers run (CPU, memory node, priority, cgroup); the array sees the same requests"
_STOPS = "when fio gives up or stops other jobs, not the requests a running job sends"
_FILES = "how fio creates or opens its files; the data requests are the same"
_BUFFERS = "what the buffers hold or where fio keeps them; the requests are the same size at the same offsets"
_SUBMIT = "how fio hands requests to the kernel or reaps them; the same requests in flight reach the array"
_RANDOM = "which random offsets are drawn, not how many or how large"
_DATA = (
    "the data's content: md, LVM, ext4 and XFS store every byte as written (neither dedupes nor compresses); "
    "only a deduplicating or compressing device (a VDO volume, an SSD or array controller with inline "
    "compression, ZFS, btrfs with compress=) would write less"
)

# Read by planners.perf.jobmix.zoned: what zonemode does on an array that is not zoned.
ZONE_OPTIONS = (
    "zonemode",
    "zonerange",
    "zonesize",
    "zoneskip",
    "zonecapacity",
    "max_open_zones",
    "job_max_open_zones",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "read_beyond_wp",
    "ignore_zone_limits",
    "recover_zbd_write_error",
    "write_zone_remainders",
)

IGNORED = {
    **dict.fromkeys(
        ("startdelay", "loops", "numruns"),
        "the model predicts the rate over the run, which these do not change",
    ),
    "ramp_size": (
        "a ramp in bytes (fio 3.42 and later) is not modelled: the figures count from the job's start, where a "
        "write cache or the page cache may take writes that fio leaves out"
    ),
    "nrfiles": "the job's size is split over its files; the bytes and the requests are the same",
    "new_group": "a new reporting group only: fio still starts the section with the others",
    **dict.fromkeys(
        (
            "group_reporting",
            "description",
            "name",
            "output",
            "output-format",
            "status-interval",
            "write_bw_log",
            "write_lat_log",
            "write_hist_log",
            "write_iops_log",
            "log_entries",
            "log_avg_msec",
            "log_hist_msec",
            "log_hist_coarseness",
            "log_window_value",
            "log_offset",
            "log_prio",
            "log_issue_time",
            "log_compression",
            "log_compression_cpus",
            "log_store_compressed",
            "log_alternate_epoch",
            "log_alternate_epoch_clock_id",
            "per_job_logs",
            "stats",
            "block_error_percentiles",
            "bwavgtime",
            "iopsavgtime",
            "disk_util",
            "percentile_list",
            "clat_percentiles",
            "lat_percentiles",
            "slat_percentiles",
            "significant_figures",
            "disable_lat",
            "disable_clat",
            "disable_slat",
            "disable_bw_measurement",
            "gtod_reduce",
            "gtod_cpu",
            "clocksource",
            "job_start_clock_id",
            "unified_rw_reporting",
            "error_dump",
            "verify_dump",
        ),
        _REPORTING,
    ),
    **dict.fromkeys(("randrepeat", "norandommap", "softrandommap", "random_generator", "randseed"), _RANDOM),
    **dict.fromkeys(
        (
            "thread",
            "cpus_allowed",
            "cpus_allowed_policy",
            "cpumask",
            "numa_cpu_nodes",
            "numa_mem_policy",
            "nice",
            "uid",
            "gid",
            "comm",
            "cgroup",
            "cgroup_weight",
            "cgroup_nodelete",
            "sqthread_poll_cpu",
            "verify_async_cpus",
        ),
        _WHERE,
    ),
    **dict.fromkeys(
        (
            "prio",
            "prioclass",
            "priohint",
            "cmdprio",
            "cmdprio_percentage",
            "cmdprio_class",
            "cmdprio_hint",
            "cmdprio_bssplit",
        ),
        "an I/O priority only reorders requests against other priorities where a scheduler honours it "
        "(md and device-mapper devices have none of their own); the requests are the same",
    ),
    **dict.fromkeys(
        ("exitall", "exit_what", "exitall_on_error", "continue_on_error", "ignore_error", "verify_fatal"), _STOPS
    ),
    **dict.fromkeys(
        ("steadystate", "steadystate_duration", "steadystate_ramp_time", "steadystate_check_interval"),
        "when fio stops measuring, not the rate it measures",
    ),
    **dict.fromkeys(
        (
            "allow_file_create",
            "allow_mounted_write",
            "create_serialize",
            "create_fsync",
            "create_on_open",
            "unlink",
            "unlink_each_loop",
            "lockfile",
            "openfiles",
            "file_service_type",
            "filename_format",
            "unique_filename",
            "fallocate",
            "overwrite",
        ),
        _FILES,
    ),
    **dict.fromkeys(
        (
            "refill_buffers",
            "zero_buffers",
            "scramble_buffers",
            "buffer_pattern",
            "mem",
            "iomem_align",
            "hugepage",
            "lockmem",
            "verify_pattern",
            "verify_pattern_interval",
            "verify_interval",
            "verify_offset",
            "verify_header_seed",
            "verify_write_sequence",
            "verify_state_save",
            "verify_state_load",
            "verify_async",
            "experimental_verify",
            "verify_backlog_batch",
            "verify_policy",
        ),
        _BUFFERS,
    ),
    "filetype": _FILES,
    "serialize_overlap": "fio holds back a request that overlaps one in flight; the requests are the same",
    **dict.fromkeys(
        (
            "buffer_compress_percentage",
            "buffer_compress_chunk",
            "dedupe_percentage",
            "dedupe_mode",
            "dedupe_working_set_percentage",
            "dedupe_global",
        ),
        _DATA,
    ),
    **dict.fromkeys(
        (
            "iodepth_low",
            "iodepth_batch_submit",
            "iodepth_batch_complete_min",
            "iodepth_batch_complete_max",
            "fixedbufs",
            "registerfiles",
            "nonvectored",
            "force_async",
            "sqthread_poll",
            "hipri",
            "hipri_percentage",
            "userspace_reap",
            "libaio_vectored",
            "no_completion_thread",
            "unit_base",
            "invalidate",
        ),
        _SUBMIT,
    ),
    "thinktime_spin": "the part of thinktime spent spinning; the pause is as long either way",
    "ioscheduler": "md and device-mapper devices have no I/O scheduler of their own to switch",
    **dict.fromkeys(
        ("write_hint", "stream_id"),
        "a lifetime hint that only an NVMe device with streams or placement uses; md and LVM pass the same writes",
    ),
    "atomic": (
        "untorn writes (RWF_ATOMIC): the same write reaches the array; a stack that does not declare "
        "atomic writes makes fio fail the job instead"
    ),
    **dict.fromkeys(
        ("sprandom", "spr_num_regions", "spr_op", "spr_cs"),
        "fio orders its random offsets so an SSD's flash reaches its steady state of invalid blocks "
        "quickly; the array sees the job's random writes of bs over the span all the same",
    ),
    "ba": (
        "random offsets are aligned to this rather than to bs: the same number of requests, as large, "
        "spread over the same span"
    ),
}
# Options the model cannot honour: a prediction would be a confident wrong number.
REFUSED = {
    **dict.fromkeys(
        ("rate_cycle", "rate_ignore_thinktime", "thinktime_iotime", "thinktime_blocks_type", "thinkcycles"),
        "fio's pacing of a capped or pausing job is not modelled",
    ),
    "write_barrier": "a barrier write every few writes is not modelled (fsync= is)",
    **dict.fromkeys(("sync_file_range", "fsync_on_close", "end_syncfs"), "this flush is not modelled (fsync= is)"),
    **dict.fromkeys(("bs_unaligned",), "block sizes off the sector grid are not modelled"),
    "include": "included files are not read: put the options in this file",
    **dict.fromkeys(
        ("trim_percentage", "trim_backlog", "trim_backlog_batch", "trim_verify_zero"), "trims are not modelled"
    ),
    **dict.fromkeys(
        (
            "read_iolog",
            "write_iolog",
            "read_iolog_chunked",
            "merge_blktrace_file",
            "replay_no_stall",
            "replay_time_scale",
            "replay_redirect",
            "replay_align",
            "replay_scale",
            "replay_skip",
            "merge_blktrace_scalars",
            "merge_blktrace_iters",
        ),
        "a replayed trace is not read: its requests are unknown here",
    ),
    **dict.fromkeys(
        (
            "fdp",
            "dataplacement",
            "plids",
            "plid_select",
            "dp_scheme",
            "md_per_io_size",
            "pi_act",
            "pi_chk",
            "apptag",
            "apptag_mask",
            "cmd_type",
            "num_range",
            "xnvme_async",
            "xnvme_sync",
            "xnvme_admin",
            "xnvme_dev_nsid",
            "xnvme_dev_subnqn",
            "xnvme_mem",
            "xnvme_iovec",
            "readfua",
            "writefua",
            "write_mode",
            "sg_write_mode",
            "read_mode",
            "verify_mode",
            "verify_bytchk",
            "cdb_len",
        ),
        "an option of the passthrough engines (io_uring_cmd, xnvme, sg): not a path through md or LVM",
    ),
    "pre_read": "files read into the page cache before the run are not modelled",
    "uncached": "buffered I/O that drops its pages after each request is not modelled",
    "create_only": "a job that only lays out its files does no I/O to predict",
    "rw_sequencer": "a sequential job that repeats offsets is not modelled",
    "random_sequence_stride": "a strided random sequence is not modelled",
    "percentage_random": "a job part sequential and part random is not modelled",
    "bs_is_seq_rand": "block sizes by sequential and random requests are not modelled",
    "file_append": "I/O appended past the end of existing files is not modelled",
    "verify_only": "a pass that only reads back an earlier job's data: give it as rw=read",
    "exec_prerun": "a command run before the job is unknown here",
    "exec_postrun": "a command run after the job is unknown here",
    "nowait": "a request that would block returns EAGAIN instead (RWF_NOWAIT): how many complete is not modelled",
    "opendir": "the files below a directory are not read here: name them with filename",
    **dict.fromkeys(
        ("profile", "cpuload", "cpuchunks", "cpumode", "exit_on_io_done"),
        "a profile or the CPU-burning engine's option, not I/O to the array",
    ),
    "max_latency": "fio ends the job at the first request slower than this: the tail is not modelled",
}
MODELLED = {
    "rw",
    "bs",
    "direct",
    "buffered",
    "numjobs",
    "iodepth",
    "ioengine",
    "size",
    "filesize",
    "filename",
    "directory",
    "kb_base",
    "runtime",
    "ramp_time",
    "time_based",
    "end_fsync",
    "fadvise_hint",
    "rwmixread",
    "rwmixwrite",
    "rate",
    "rate_iops",
    "thinktime",
    "thinktime_blocks",
    "fsync",
    "fdatasync",
    "sync",
    "io_size",
    "number_ios",
    "stonewall",
    "wait_for",
    "bssplit",
    "bsrange",
    "random_distribution",
    "verify",
    "do_verify",
    "verify_backlog",
    "latency_target",
    "latency_window",
    "latency_percentile",
    "latency_run",
    "flow",
    "flow_id",
    "flow_sleep",
    "io_submit_mode",
    "rate_min",
    "rate_iops_min",
    "rate_process",
    "offset",
    "offset_increment",
    "offset_align",
    "fill_device",
    *ZONE_OPTIONS,
}


def canonical(key: str) -> str:
    """The option fio means by `key` (its alias resolved)."""
    return ALIASES.get(key, key)
