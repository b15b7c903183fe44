#!/bin/sh
# bench-claims: precision and recall of the claims extractor on the
# labelled corpus (tests/fixtures/claims/*.mbox with NAME.expected),
# overall and per kind of letter, and the time one 1 MB letter takes.
# KPERFCI_BEFORE=path/to/an/older/kperfci prints its figures beside.
# CLAIMS_VERBOSE=1 lists every wrong and missed claim.
set -e
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# t-claims --extract-ms times the extraction alone
CLAIMS_T_CLAIMS=${KPERFCI_BENCH:+$KPERFCI_BENCH/../tests/t-claims}
export CLAIMS_T_CLAIMS
exec python3 "$SRC/tests/bench/claims-score.py" "$SRC/tests/fixtures/claims" \
    "${KPERFCI_BIN:?set by make}/kperfci" ${KPERFCI_BEFORE:+"$KPERFCI_BEFORE"}
