dist_man_MANS += man/uring-log.5
