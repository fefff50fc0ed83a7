"""`compiled.as_text()`, `cost_analysis()` and `memory_analysis()` show xlac's own program
and figures: each is checked against the dump folder xlac writes for the same compile
(its `cpu_after_optimizations.txt`, the cost table of `report.html`, the buffer
assignment), in a subprocess whose client has `dump_to` set.
"""

import html
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from test_jit import CASES, LINALG

NAMES = [
    "add_one", "int_bitops", "reduce_sum_axes", "mean_var", "matmul", "batched_einsum", "softmax",
    "mlp_grad", "transformer_block", "cnn_pooling", "while_loop", "fori_loop", "scan", "cond",
    "switch", "random_uniform_bits", "gather_indexing", "scatter_set_add", "dynamic_slices",
    "sort", "argsort", "top_k", "cumsum", "bf16_mix", "f16_mix", "erf", "logsumexp", "zero_d",
    "zero_size", "captured_constant_1mib", "multiple_outputs_pytree",
    "reshape_transpose_concat_pad",
]
LINALG_NAMES = ["cholesky", "solve", "qr", "eigh", "svd"]

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import jax
    dump, out, tests = sys.argv[1], sys.argv[2], sys.argv[3]
    jax.config.update("jax_pjrt_client_create_options", "dump_to:" + dump)
    sys.path.insert(0, tests)
    from test_jit import CASES, LINALG
    records = []
    for name in sys.argv[4:]:
        f, args, _ = CASES[name] if name in CASES else LINALG[name]
        before = set(os.listdir(dump)) if os.path.isdir(dump) else set()
        compiled = jax.jit(f).lower(*args).compile()
        text = compiled.as_text()
        cost = compiled.cost_analysis()
        m = compiled.memory_analysis()
        records.append(dict(
            name=name,
            text=text,
            cost={k: float(v) for k, v in cost.items()},
            memory={k: getattr(m, k) for k in ("argument_size_in_bytes", "output_size_in_bytes",
                                               "temp_size_in_bytes", "alias_size_in_bytes")},
            folders=sorted(set(os.listdir(dump)) - before),
            hlo_modules=len(compiled.runtime_executable().hlo_modules()),
        ))
    with open(out, "w") as fh:
        json.dump(records, fh)
    """
)

HEADER = re.compile(r"^(?:ENTRY\s+)?%?([^\s(]+)\s+\(.*\{\s*$")
INSTRUCTION = re.compile(r"^\s+(?:ROOT\s+)?%?([^\s=]+)\s+=\s+(.*)$")
OPCODE = re.compile(r"([a-z][a-z0-9-]*)\(")


def program(text):
    """{computation: {instruction: opcode}}, the fusion kinds, and the header line."""
    comps, current = {}, None
    for line in text.splitlines():
        h = HEADER.match(line)
        if h and not line.startswith(" "):
            current = comps.setdefault(h.group(1), {})
            continue
        i = INSTRUCTION.match(line)
        if i and current is not None:
            current[i.group(1)] = OPCODE.search(i.group(2)).group(1)
    kinds = sorted(re.findall(r"kind=(k[A-Za-z]+)", text))
    return comps, kinds, text.splitlines()[0]


SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
HALF_UNIT = {"": 0.0, "k": 50.0, "M": 5e3, "G": 5e6}


def report_costs(report):
    """Sums of the flops and transcendentals columns of report.html's cost table, and how
    far rounding to the printed digits may move each sum."""
    table = report.split('<table id="cost">', 1)[1].split("</table>", 1)[0]
    sums = {"flops": [0.0, 0.0], "transcendentals": [0.0, 0.0]}
    for row in table.split("<tr>")[2:]:
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in row.split("<td")[1:]]
        cells = [c.split(">", 1)[1] if ">" in c else c for c in cells]
        for key, column in (("flops", 4), ("transcendentals", 5)):
            value, _, unit = cells[column].strip().partition(" ")
            sums[key][0] += float(value) * SCALE[unit]
            sums[key][1] += HALF_UNIT[unit]
    return sums


def allocations(buffer_assignment):
    sizes = {"parameter": 0, "temp": 0}
    for m in re.finditer(r"^allocation \d+: size (\d+), (.*)$", buffer_assignment, re.M):
        size, what = int(m.group(1)), m.group(2)
        if what.startswith("parameter "):
            sizes["parameter"] += size
        elif "preallocated-temp" in what:
            sizes["temp"] += size
    return sizes


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("optimized")
    script = tmp / "script.py"
    script.write_text(SCRIPT)
    dump, out = tmp / "dump", tmp / "records.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLAC_PJRT")}
    result = subprocess.run(
        [sys.executable, str(script), str(dump), str(out), str(pathlib.Path(__file__).parent),
         *NAMES, *LINALG_NAMES],
        capture_output=True, text=True, env=env, timeout=1200,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return {r["name"]: (r, dump) for r in json.loads(out.read_text())}


@pytest.mark.jit
@pytest.mark.parametrize("name", NAMES + LINALG_NAMES)
def test_as_text_cost_and_memory_are_xlacs(records, name):
    record, dump = records[name]
    text = record["text"]
    assert record["hlo_modules"] == 1
    module = re.match(r"HloModule (\S+?),?\s", text).group(1)
    (folder,) = [f for f in record["folders"] if f.endswith("." + module)]
    # Each compile has its own folder; the files in it are numbered as one module's.
    base = dump / folder / f"module_0000.{module}"
    xlac_text = pathlib.Path(f"{base}.cpu_after_optimizations.txt").read_text()
    got, got_kinds, header = program(text)
    want, want_kinds, _ = program(xlac_text)
    # Every computation of xlac's optimized module with its instructions' opcodes, and
    # every instruction by its xlac name where that name is unique in the module (XLA wants
    # module-unique names; the proto writer suffixes later repeats): the fusions xlac made,
    # with xlac's names, and nothing else.
    assert sorted(got) == sorted(want)
    for comp in want:
        assert sorted(got[comp].values()) == sorted(want[comp].values()), comp
    counts = {}
    for comp in want.values():
        for n in comp:
            counts[n] = counts.get(n, 0) + 1
    for comp, instrs in want.items():
        for n, opcode in instrs.items():
            if counts[n] == 1:
                assert got[comp].get(n) == opcode, (comp, n)
    assert got_kinds == want_kinds
    assert ("is_scheduled=true" in header) == ("is_scheduled=true" in xlac_text.splitlines()[0])

    costs = report_costs(pathlib.Path(dump / folder / "report.html").read_text())
    for key in ("flops", "transcendentals"):
        total, slack = costs[key]
        assert abs(record["cost"][key] - total) <= slack + 0.5, (key, record["cost"], costs)

    sizes = allocations(pathlib.Path(f"{base}.cpu_after_optimizations-buffer-assignment.txt").read_text())
    memory = record["memory"]
    assert memory["argument_size_in_bytes"] == sizes["parameter"], (memory, sizes)
    assert memory["temp_size_in_bytes"] == sizes["temp"], (memory, sizes)


@pytest.mark.jit
def test_some_cases_make_fusions_and_cost_flops(records):
    """The comparison above is not vacuous: xlac's fusions and flops show up."""
    fused = [n for n, (r, _) in records.items() if "fusion(" in r["text"]]
    assert len(fused) >= 10, fused
    assert records["matmul"][0]["cost"]["flops"] == 2 * 32 * 48 * 16
    assert "custom-call" in records["eigh"][0]["text"] or "custom_call_target" in records["eigh"][0]["text"]
