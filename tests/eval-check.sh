#!/bin/sh
# tests/eval-check.sh LABELS OUTPUT: score pipeline output records against
# a labelled routing or sessions file, written apart from cc-eval (in jq,
# from ../shared/eval/README.md section 5) so the two can check each other.
# OUTPUT is what `cc-eval -o` wrote: records carrying the labelled id (and
# turn, for sessions).  Prints {kind, scored, strict, lenient, clear,
# fields} with right/total counts.
set -eu
[ $# -eq 2 ] || { echo "usage: eval-check.sh LABELS OUTPUT" >&2; exit 2; }
jq -n --slurpfile labels "$1" --slurpfile out "$2" '
  def alias: if . == "calendar" then "events"
             elif . == "pricing" or . == "facilities" or . == "access" or . == "hours"
             then "facility-info" else . end;
  def key: [.agent, (.category | alias), .request_type, .language];
  def count(f): {right: (map(select(f)) | length), total: length};

  (if $labels[0] | has("turns") then "sessions" else "routing" end) as $kind
  # what came out, by id and turn
  | (reduce $out[] as $r ({}; .["\($r.id)/\($r.turn // 0)"] = ($r.route // {}))) as $got
  # every labelled query, with what came out for it
  | [ $labels[]
      | if $kind == "sessions"
        then .id as $id | .turns | to_entries[]
             | {id: $id, turn: (.key + 1), label: .value}
        else {id, turn: 0, label: .} end
      | . + {got: ($got["\(.id)/\(.turn)"] // {})} ]
  # sessions are scored on the follow-up turns
  | map(select($kind == "routing" or .turn >= 2))
  | map((.got | key) as $g
        | . + {strict: ($g == (.label.expect | key))}
        | . + {lenient: (.strict or ((.label.alt // []) | map(key) | index([$g]) != null)),
               clear: (.label.ambiguous != true)})
  | {kind: $kind, scored: length,
     strict: count(.strict), lenient: count(.lenient),
     clear: (map(select(.clear)) | count(.strict)),
     fields: (. as $rows | [("agent", "category", "request_type", "language") as $f
       | {($f): ($rows | count(
           if $f == "category" then (.got.category | alias) == (.label.expect.category | alias)
           else .got[$f] == .label.expect[$f] end))}] | add)}'
