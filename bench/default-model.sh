# Sourced by the loop benchmark scripts: sets MODEL to the installed default model's folder
# (Qwen2.5-Coder-0.5B-Instruct), or stops with the command that installs it.
MODEL=$(node dist/cli.js models list --json |
  node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")).find((r) => r.id === process.argv[1]);
if (m?.state !== "installed") { console.error(`${process.argv[1]} is not installed: run bash scripts/setup.sh`); process.exit(2); }
console.log(m.dir)' qwen2.5-coder-0.5b-instruct)
