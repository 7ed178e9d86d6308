# Every target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STORE ?= examples/store
DB ?= seamless.db
PORT ?= 8001
STAMP := $(VENV)/.installed

.PHONY: install index check serve test lint docs browser bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(STAMP)

index: $(STAMP)  ## index STORE into DB (incremental; FULL=1 rebuilds)
	$(BIN)/seamless index $(STORE) --db $(DB) $(if $(FULL),--full)

check: $(STAMP)  ## validate STORE without writing
	$(BIN)/seamless check $(STORE)

serve: index  ## index the store, then serve the explorer on 127.0.0.1:$(PORT)
	$(BIN)/seamless serve --db $(DB) --port $(PORT)

browser:  ## Debian's chromium (browser tests) and git (the store's history, sync), installed when missing and root
	@missing="$$(command -v chromium >/dev/null || echo chromium) $$(command -v git >/dev/null || echo git)"; \
	[ -z "$$(echo $$missing)" ] || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null)

lint: $(STAMP)  ## ruff (lint, import order, format) and mypy on indexer/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

docs: $(STAMP)  ## write the generated parts of docs/ (the rules table, the CLI reference)
	$(BIN)/python -m docs.generate

test: $(STAMP) browser lint  ## the whole test suite on parallel workers (WORKERS=2; 0: serially), after the lint
	$(BIN)/pytest -q -n $(or $(WORKERS),2)

bench: $(STAMP)  ## performance figures (SIZES="1000 10000 100000"); sync, history, the gardener and recall at the largest size
	$(BIN)/python -m bench $(if $(SIZES),--sizes "$(SIZES)")
	$(BIN)/python -m bench.warned_store
	$(BIN)/python -m bench.revisions $(if $(SIZES),--sizes "$(SIZES)")  # the store's git history, at the largest size
	$(BIN)/python -m bench.sync $(if $(SIZES),--memories $(lastword $(SIZES)))
	$(BIN)/python -m bench.gardener $(if $(SIZES),--sizes "$(lastword $(SIZES))")
	$(BIN)/python -m bench.ties $(if $(SIZES),--sizes "$(firstword $(SIZES)) $(lastword $(SIZES))")
	$(BIN)/python -m bench.startup  # each command's start-up on the example store, against python -c pass
	$(BIN)/python -m bench.rebuild $(if $(filter 100000,$(or $(SIZES),100000)),--big)  # a full rebuild against the straightforward baseline: 100 memories to 10k, 578 notes; 100k with it
	$(BIN)/python -m bench.recall $(if $(LOCOMO),--locomo "$(LOCOMO)") $(if $(SIZES),--sizes "$(lastword $(SIZES))")  # LOCOMO=locomo10.zip

fuzz: $(STAMP)  ## the fuzz campaign, not part of `make test` (MINUTES=10: the documented length)
	$(BIN)/python -m fuzz --minutes $(or $(MINUTES),10)

clean:
	rm -rf $(VENV) $(DB) $(DB)-wal $(DB)-shm $(DB).lock test-artifacts .mypy_cache build dist
