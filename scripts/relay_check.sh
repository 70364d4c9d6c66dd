#!/usr/bin/env bash
# A real-model check of the planning modes: chosen suite tasks against any OpenAI-compatible
# endpoint, `flat` (the peers' loop) beside the default mode, one table per task — success
# read from the phone, model calls by role (planner + operator), tokens, wall time.
#
#   scripts/relay_check.sh URL [TASKS] [OUT]
#
# URL    the endpoint, e.g. http://127.0.0.1:8765/v1 (the relay in ../shared/tools/
#        relay_model.py, where another model answers each request from the files it writes,
#        or a real server; OMG_MODEL names the model, OMG_API_KEY its key if it needs one)
# TASKS  comma-separated suite task ids or tags (default: ten tasks across the apps, English
#        and Chinese)
# OUT    the output folder (default runs/relay-check/<timestamp>)
#
# Runs one task at a time unless PARALLEL=N (a relay with N answerers). MODES="flat unified
# adaptive" picks the planning modes compared (default: flat and adaptive, the default mode).
set -euo pipefail
cd "$(dirname "$0")/.."
url="${1:?usage: scripts/relay_check.sh URL [TASKS] [OUT]}"
tasks="${2:-settings.wifi,settings.bluetooth.zh,notes.create,notes.create.zh,shop.add_to_cart,shop.price_to_notes,messages.send,messages.send.zh,feed.like_first,shop.not_sold}"
out="${3:-runs/relay-check/$(date +%Y%m%d-%H%M%S)}"
export OMG_TIMEOUT_S="${OMG_TIMEOUT_S:-590}"   # a model answering by hand is slow
export OMG_MAX_RETRIES="${OMG_MAX_RETRIES:-0}"
configs=()
for mode in ${MODES:-flat adaptive}; do   # flat trusts the model's finish, as the peers do
    case "$mode" in
        flat) configs+=(--config flat:planning=flat,confirm_done=never) ;;
        *) configs+=(--config "$mode:planning=$mode") ;;
    esac
done
exec .venv/bin/omg-agent bench suite --model "$url" --tasks "$tasks" --parallel "${PARALLEL:-1}" \
    --max-steps "${MAX_STEPS:-40}" --seed "${SEED:-2}" --per-task "${configs[@]}" --out "$out"
