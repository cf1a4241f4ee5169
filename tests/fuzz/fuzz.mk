# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The libFuzzer targets, built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in a directory of their own.  A standalone GNU
# make file, run by tests/fuzz/fuzz.sh (make fuzz), so that the ordinary
# build never needs clang:
#
#   make -f tests/fuzz/fuzz.mk SRCDIR=... BUILDDIR=... OUT=...
#
# BUILDDIR is a configured build tree (for config.h).  The converter's
# sources are taken by wildcard, so a new output (converter/output_*.c)
# needs no change here.

SRCDIR ?= .
BUILDDIR ?= .
OUT ?= $(BUILDDIR)/tests/fuzz/bin
FUZZ_CC ?= clang
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS ?= -g -O1 -fno-omit-frame-pointer
ZSTD_CFLAGS ?= $(shell pkg-config --cflags libzstd 2>/dev/null)
ZSTD_LIBS ?= $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)

CPPF = -include $(BUILDDIR)/config.h -I$(SRCDIR)/common -I$(SRCDIR)/libcore -I$(SRCDIR)/converter \
	-I$(SRCDIR)/tests -I$(SRCDIR)/tests/fuzz
CF = -std=c11 -pthread $(FUZZ_CFLAGS) $(SANITIZE) $(ZSTD_CFLAGS) -Wall -Wextra \
	-Wno-missing-field-initializers

LIB_SRC = $(wildcard $(SRCDIR)/common/*.c) $(wildcard $(SRCDIR)/libcore/*.c) \
	$(filter-out $(SRCDIR)/converter/main.c,$(wildcard $(SRCDIR)/converter/*.c)) \
	$(SRCDIR)/tests/fuzz/fuzz_input.c $(SRCDIR)/tests/fuzz/fuzz_reader.c \
	$(SRCDIR)/tests/fuzz/fuzz_convert.c $(SRCDIR)/tests/fxt_reader.c
LIB_OBJ = $(patsubst $(SRCDIR)/%.c,$(OUT)/obj/%.o,$(LIB_SRC))

# Target name -> its define for fuzz_main.c.
TARGETS = fuzz_reader fuzz_convert_summary fuzz_convert_json fuzz_convert_csv \
	fuzz_convert_fxt
DEF_fuzz_reader = -DFUZZ_TARGET_READER
DEF_fuzz_convert_summary = -DFUZZ_TARGET_FORMAT=FORMAT_SUMMARY
DEF_fuzz_convert_json = -DFUZZ_TARGET_FORMAT=FORMAT_JSON
DEF_fuzz_convert_csv = -DFUZZ_TARGET_FORMAT=FORMAT_CSV
DEF_fuzz_convert_fxt = -DFUZZ_TARGET_FORMAT=FORMAT_FXT

all: $(addprefix $(OUT)/,$(TARGETS))

$(LIB_OBJ): $(OUT)/obj/%.o: $(SRCDIR)/%.c $(BUILDDIR)/config.h
	@mkdir -p $(dir $@)
	@echo "  FUZZCC   $*.c"
	@$(FUZZ_CC) $(CPPF) $(CF) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(patsubst %,$(OUT)/obj/main_%.o,$(TARGETS)): $(OUT)/obj/main_%.o: $(SRCDIR)/tests/fuzz/fuzz_main.c $(BUILDDIR)/config.h
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(CPPF) $(CF) $(DEF_$*) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(addprefix $(OUT)/,$(TARGETS)): $(OUT)/%: $(OUT)/obj/main_%.o $(LIB_OBJ)
	@echo "  FUZZLD   $*"
	@$(FUZZ_CC) $(CF) -fsanitize=fuzzer -o $@ $^ $(ZSTD_LIBS) -lm

.PHONY: all
.SECONDARY:
-include $(LIB_OBJ:.o=.d) $(patsubst %,$(OUT)/obj/main_%.d,$(TARGETS))
