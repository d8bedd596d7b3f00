# Sourced by the benchmark scripts: sets DATA to MATH-500.jsonl in $STEPWISE_DATA_DIR (default
# ../shared/data beside the repository), or stops with a message saying where it looked.
DATA=${STEPWISE_DATA_DIR:-$ROOT/../shared/data}/MATH-500.jsonl
if [ ! -f "$DATA" ]; then
  echo "MATH-500 is not at $DATA; set STEPWISE_DATA_DIR to the folder that holds MATH-500.jsonl." >&2
  exit 2
fi
