import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

/**
 * scripts/onnx_tidy.py on a graph made for the test: a softmax guarded as torch.onnx's exporter guards
 * it (`Where(IsNaN(p), 0, p)`), beside a look-alike whose "then" is 1, which changes values and stays.
 */
describe('scripts/onnx_tidy.py (the exporter’s NaN guards dropped)', () => {
  it('drops the exact guard, keeps the look-alike, and the outputs do not change', { timeout: 120_000 }, () => {
    const python = path.join(ROOT, '.venv-export', 'bin', 'python');
    const code = [
      'import json, sys, numpy as np, onnx, onnxruntime as ort',
      'from onnx import helper, TensorProto, numpy_helper',
      `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'scripts'))})`,
      'from onnx_tidy import drop_nan_guards',
      'f = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])',
      'nodes = [',
      '  helper.make_node("Softmax", ["x"], ["p"], axis=-1),',
      '  helper.make_node("IsNaN", ["p"], ["nan"]),',
      '  helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),',
      '  helper.make_node("Mul", ["guarded", "x"], ["y"]),',
      '  helper.make_node("Softmax", ["y"], ["q"], axis=-1),',
      '  helper.make_node("IsNaN", ["q"], ["nan2"]),',
      '  helper.make_node("Where", ["nan2", "one", "q"], ["w"]),',
      '  helper.make_node("Identity", ["w"], ["z"]),',
      ']',
      'inits = [numpy_helper.from_array(np.array(0.0, np.float32), "zero"), numpy_helper.from_array(np.array(1.0, np.float32), "one")]',
      'g = helper.make_graph(nodes, "g", [f("x")], [f("z")], inits)',
      'm = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])',
      'x = np.array([[1.0, 2.0, -np.inf], [0.5, -1.0, 3.0]], np.float32)',
      'run = lambda model: ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]',
      'before = run(m)',
      'n = drop_nan_guards(m)',
      'onnx.checker.check_model(m)',
      'print(json.dumps({"dropped": n, "ops": [n.op_type for n in m.graph.node], "same": bool(np.array_equal(before, run(m)))}))',
    ].join('\n');
    const out = JSON.parse(execFileSync(python, ['-c', code], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out.dropped).toBe(1);
    expect(out.ops).toEqual(['Softmax', 'Mul', 'Softmax', 'IsNaN', 'Where', 'Identity']);
    expect(out.same).toBe(true);
  });
});
