# Shortcuts for the scripts in scripts/.
.PHONY: serve test bench bench-quick bench-thresholds

serve:
	scripts/serve

test:
	scripts/test

bench:
	scripts/bench

bench-quick:
	scripts/bench --quick

bench-thresholds:
	scripts/bench thresholds
