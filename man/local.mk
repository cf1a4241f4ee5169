dist_man_MANS += man/uring-log.5
dist_man_MANS += man/uring-convert.1
dist_man_MANS += man/uring-record.8
dist_man_MANS += man/uring-replay.1
