# tests/fake-kernel.sh: a tiny stand-in for a kernel tree, for tests of the
# apply and build machinery that must not spend minutes compiling Linux.
# Source after tests/lib.sh.
#
#   fake_kernel_tree DIR   a git repository (branch master, one commit by
#                          Jane Doe at a fixed date) whose Makefile knows
#                          tinyconfig, olddefconfig and bzImage with O=,
#                          plus scripts/kconfig/merge_config.sh, mm/swap.c
#                          (lines 1-30) and main.c; $(EXTRA) names extra
#                          bzImage prerequisites a test may add.  Writes
#                          $T/frag.config (CONFIG_FAKE=y).  Exports the
#                          GIT_* identity and dates it used.
#   fake_kernel_series DIR OUT
#                          fake_kernel_tree DIR, then a series on it in
#                          OUT: a cover letter ("mm: batch the thing") and
#                          one patch to mm/swap.c from Dev Eloper
#                          <dev@example.org>, To: linux-mm@example.org;
#                          sets R (DIR), BASE, COVER and P1 (Message-IDs)
#   fake_kernel_probe DIR  commits to DIR's tree a change whose build fails
#                          when it can see the daemon's store ($T/var) or
#                          write a 3 MB file (past [build] file_max = 1M),
#                          and says "probe: store hidden, file_max applied"
#                          in its build log (t2750, t2760)
#   fake_kernel_probe_passed
#                          whether a build log under $T/var/builds says so
#
# The bzImage is 0x202 zero bytes, "HdrS", padding, then the objects and
# the .config, so it passes as a kernel image and base and patched images
# differ exactly as their sources do.

fake_kernel_tree() {
	export GIT_AUTHOR_NAME="Jane Doe" GIT_AUTHOR_EMAIL="jane@example.org"
	export GIT_COMMITTER_NAME="Jane Doe" GIT_COMMITTER_EMAIL="jane@example.org"
	export GIT_AUTHOR_DATE="1730710800 +0100" GIT_COMMITTER_DATE="1730710800 +0100"
	mkdir -p "$1/scripts/kconfig" "$1/mm" || return 1
	cat >"$1/Makefile" <<'MK'
O ?= .
objs := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard *.c mm/*.c)))
tinyconfig:
	echo CONFIG_TINY=y > $(O)/.config
olddefconfig:
	sort -u $(O)/.config -o $(O)/.config
$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	cp $< $@
bzImage: $(objs) $(EXTRA)
	mkdir -p $(O)/arch/x86/boot
	head -c 514 /dev/zero > $(O)/arch/x86/boot/bzImage
	printf 'HdrS' >> $(O)/arch/x86/boot/bzImage
	head -c 64 /dev/zero >> $(O)/arch/x86/boot/bzImage
	cat $(objs) $(O)/.config >> $(O)/arch/x86/boot/bzImage
	cp $(O)/.config $(O)/System.map
.PHONY: tinyconfig olddefconfig bzImage
MK
	cat >"$1/scripts/kconfig/merge_config.sh" <<'SH'
#!/bin/sh
shift; shift; out=$1; shift; base=$1; shift
cat "$@" >> "$base"
SH
	chmod +x "$1/scripts/kconfig/merge_config.sh"
	seq 1 30 >"$1/mm/swap.c"
	echo init >"$1/main.c"
	echo CONFIG_FAKE=y >"$T/frag.config"
	git -C "$1" init -q -b master &&
	git -C "$1" add -A &&
	git -C "$1" commit -qm "fake kernel"
}

fake_kernel_series() {
	R=$1
	fake_kernel_tree "$R" || return 1
	BASE=$(git -C "$R" rev-parse HEAD)
	git clone -q "$R" "$T/work" &&
	sed -i 's/^10$/ten/' "$T/work/mm/swap.c" || return 1
	export GIT_AUTHOR_NAME="Dev Eloper" GIT_AUTHOR_EMAIL=dev@example.org
	export GIT_COMMITTER_NAME="Dev Eloper" GIT_COMMITTER_EMAIL=dev@example.org
	git -C "$T/work" commit -qam "mm/swap: batch the thing" &&
	git -C "$T/work" format-patch -q --cover-letter --thread=shallow \
	    --base="$BASE" --to=linux-mm@example.org \
	    --from="Dev Eloper <dev@example.org>" -o "$2" -1 || return 1
	sed -i 's/\*\*\* SUBJECT HERE \*\*\*/mm: batch the thing/' \
	    "$2"/0000-*.patch
	COVER=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$2"/0000-*.patch)
	P1=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$2"/0001-*.patch)
}

fake_kernel_probe() {
	cat >"$T/probe.mk" <<MK
probe:
	@if test -e $T/var/kperfci.db; then echo "the store is visible to the build"; exit 1; fi
	@if head -c 3000000 /dev/zero > \$(O)/big 2>/dev/null; then echo "a 3 MB file was written past file_max"; exit 1; fi
	@rm -f \$(O)/big
	@echo "probe: store hidden, file_max applied"
MK
	sed -i '1i EXTRA := probe' "$1/Makefile"
	cat "$T/probe.mk" >>"$1/Makefile"
	git -C "$1" commit -qam "mm: a commit whose build probes its sandbox"
}

fake_kernel_probe_passed() {
	_fkp=$(find "$T/var/builds" -name build.log 2>/dev/null |
	    xargs grep -l "probe:" 2>/dev/null | head -1)
	grep -q "probe: store hidden, file_max applied" "${_fkp:-/dev/null}"
}
