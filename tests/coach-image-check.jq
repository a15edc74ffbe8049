# tests/coach-image-check.jq: the failures of one result against one
# vector of tests/data/peer-image.ndjson (format: the peer README):
#   jq -n --argjson v VECTOR --slurpfile r RESULT -f coach-image-check.jq
# prints one line per failed expectation, nothing when all hold.
def segs: split(".") | map(if test("^[0-9]+$") then tonumber else . end);
def at($r; $path): $r | try getpath($path | segs) catch null;
def present($r; $path):
  ($path | segs) as $a
  | $r | try (getpath($a[:-1])
      | if type == "object" then has($a[-1])
        elif type == "array" and ($a[-1] | type) == "number" then $a[-1] < length
        else false end) catch false;
def same($a; $b):
  if ($a | type) == "number" and ($b | type) == "number"
  then (($a - $b) | fabs) < 1e-9 else $a == $b end;
$r[0] as $r
| ($v.expect // {} | to_entries[]
   | select(same(at($r; .key); .value) | not)
   | "expect \(.key) == \(.value | tojson), got \(at($r; .key) | tojson)"),
  ($v.checks // [] | .[] | . as $c | at($r; $c.path) as $x
   | select(
       ($c.op == "present" and (present($r; $c.path) | not)) or
       ($c.op == "absent" and present($r; $c.path)) or
       ($c.op == "list" and ($x | type) != "array") or
       ($c.op == "string" and ($x | type) != "string") or
       ($c.op == "nonempty_string" and (($x | type) != "string" or $x == "")) or
       ($c.op == "len" and (($x | length) != $c.value)) or
       ($c.op == "min_len" and (($x | length) < $c.value)) or
       ($c.op == "contains" and (($x | type) != "string" or ($x | contains($c.value) | not))) or
       ($c.op == "ge" and (($x | type) != "number" or $x < $c.value)) or
       ($c.op == "equals" and $x != $c.value))
   | "check \($c.path) \($c.op) \($c.value // "" | tojson), got \($x | tojson)")
