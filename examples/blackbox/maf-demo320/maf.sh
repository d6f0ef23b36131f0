#!/bin/sh
# Runs maf-demo320 with the store variant named by MAF_DEMO320_STORE (the spec's env). The binary is
# $MAF_DEMO320_BIN when set, else the Release build of maf/Demo320 in this tree
# (`dotnet build maf/Demo320 -c Release`).
bin="${MAF_DEMO320_BIN:-$STEPFAULT_SPEC_DIR/../../../maf/artifacts/bin/Demo320/release/maf-demo320}"
exec "$bin" "$@" --store "$MAF_DEMO320_STORE"
