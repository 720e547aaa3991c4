# Everyday cargo commands. The full test command (the dev chain's node, the C verifier under
# sanitizers, the fuzz run, the TypeScript kit) is ./build.sh test; `make help` lists these.

CARGO := cargo
TARGET := riscv64imac-unknown-none-elf
# The RISC-V contracts: built for $(TARGET) only (./build.sh build strips them into build/release).
CONTRACTS := baseline-verifier compiled-verifier accumulator-type merge-bench
HOST := --workspace $(addprefix --exclude ,$(CONTRACTS))
# The no_std cores: their own tests, natively, no binaries and no node needed.
CORES := mmr-lock mmr-blake2b compiled-proof baseline-proof mmr-accumulator

.PHONY: help build release test test-cores test-all check fmt fmt-check clippy checksum

help:
	@echo "make build       host tools and tests (cargo build), the contracts for $(TARGET)"
	@echo "make release     build/release: the stripped contracts the tests run (./build.sh build)"
	@echo "make test-cores  the no_std cores' tests, in seconds, no node, no binaries"
	@echo "make test        the workspace's tests but the dev chain's (after make release)"
	@echo "make test-all    the full test command (./build.sh test)"
	@echo "make check       cargo check of every host crate and test"
	@echo "make fmt         cargo fmt --all (fmt-check: only check)"
	@echo "make clippy      cargo clippy on the host crates, warnings denied"
	@echo "make checksum    build/release against checksums.txt (sha256)"

build:
	$(CARGO) build --release --locked $(HOST)
	$(CARGO) build --locked --profile contract --target $(TARGET) $(addprefix -p ,$(CONTRACTS))

release:
	./build.sh build

test-cores:
	$(CARGO) test --release --locked $(addprefix -p ,$(CORES)) --features mmr-accumulator/std

test: release
	$(CARGO) test --release --locked $(HOST) --exclude ckb-devnet --exclude ckb-mmr-sdk

test-all:
	./build.sh test

check:
	$(CARGO) check --release --locked $(HOST) --tests

fmt:
	$(CARGO) fmt --all

fmt-check:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --release --locked $(HOST) --tests -- -D warnings

checksum: release
	cd build/release && sha256sum --check --strict ../../checksums.txt
