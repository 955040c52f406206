import { readFileSync } from 'node:fs';
import path from 'node:path';
import { applyAnswer, applyBlock, codeBlocks, fileAnswerRequest, topLevelFunctions } from '../../src/loop/code-answer';

/** The model-alone baseline's answer applied to the task's files: the functions a block defines, or the whole file. */
const PY = `import math


def area(r):
    """Area of a circle."""
    raise NotImplementedError


def unrelated():
    return 1
`;

test('a block defining the stub function replaces that function only, and brings the imports it adds', () => {
  const block = 'import re\n\ndef area(r):\n    return math.pi * r * r\n\nprint(area(2))\n';
  const out = applyBlock(PY, block, 'solution.py');
  expect(out).toBe('import re\nimport math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\ndef unrelated():\n    return 1\n');
});

test('a block with none of the file\'s functions is the whole new file; a file of another language too', () => {
  expect(applyBlock(PY, 'x = 1', 'solution.py')).toBe('x = 1\n');
  expect(applyBlock('{"a": 1}\n', '{"a": 2}\n', 'config.json')).toBe('{"a": 2}\n');
});

test('JavaScript: the function up to its closing brace is replaced, module.exports kept', () => {
  const js = readFileSync(path.join(__dirname, '../../evals/functions/js-range/workspace/solution.js'), 'utf8');
  const reply = 'Here:\n```javascript\nfunction range(start, end, step = 1) {\n  const out = [];\n  for (let i = start; i < end; i += step) { out.push(i); }\n  return out;\n}\n```\n';
  const out = applyAnswer(reply, [{ path: 'solution.js', text: js }]).get('solution.js') ?? '';
  expect(out).toContain('for (let i = start; i < end; i += step) { out.push(i); }');
  expect(out).not.toContain('not implemented');
  expect(out).toContain('module.exports = { range };');
  expect(out).toContain('@example range(1, 10, 3)');
  const mod = { exports: {} as { range?: (a: number, b: number, c?: number) => number[] } };
  new Function('module', out)(mod);
  expect(mod.exports.range?.(1, 10, 3)).toEqual([1, 4, 7]);
});

test('blocks go to the file named on the line before them, else to the file whose function they define', () => {
  const files = [
    { path: 'a.py', text: 'def a():\n    raise NotImplementedError\n' },
    { path: 'b.py', text: 'def b():\n    raise NotImplementedError\n' },
  ];
  const reply = 'Usage:\n```python\nprint(1)\n```\n```python\ndef b():\n    return 2\n```\nAnd a.py:\n```python\ndef a():\n    return 1\n```\n';
  expect(codeBlocks(reply, ['a.py', 'b.py']).map((b) => b.path)).toEqual([undefined, undefined, 'a.py']);
  const written = applyAnswer(reply, files);
  expect(written.get('a.py')).toBe('def a():\n    return 1\n');
  expect(written.get('b.py')).toBe('def b():\n    return 2\n');
  expect(applyAnswer('No code here.', files).size).toBe(0);
});

test('top-level functions: a Python body ends at the next unindented line, decorators belong to it', () => {
  const defs = topLevelFunctions('@cache\ndef f(x):\n    if x:\n\n        return 1\nY = 2\nasync def g():\n    pass\n', 'python');
  expect(defs).toEqual([
    { name: 'f', start: 0, end: 5 },
    { name: 'g', start: 6, end: 8 },
  ]);
});

test('the request holds the prompt, each named file fenced under its path, and what to answer with', () => {
  const text = fileAnswerRequest('Complete f in a.py.', [{ path: 'a.py', text: 'def f():\n    raise NotImplementedError' }]);
  expect(text).toBe('Complete f in a.py.\n\na.py:\n```python\ndef f():\n    raise NotImplementedError\n```\n\nReply with the finished code: each file you change, complete, in one fenced code block, with its path on the line before the block.');
  expect(fileAnswerRequest('What port?', [])).toBe('What port?\n\nAnswer in plain text.');
});

test('hostile replies and files cost time linear in their size: unclosed fences, runs of backslashes in strings, long declarations', () => {
  const fences = '```x\n'.repeat(50_000);
  expect(codeBlocks(fences, ['a.js'])).toEqual([]);
  const backslashes = `function f() {\n  return "${'\\'.repeat(100_000)}\n}\n`;
  expect(topLevelFunctions(backslashes, 'javascript')).toHaveLength(1);
  const declaration = `const${' '.repeat(200_000)}x\nfunction${' '.repeat(200_000)}(\n`;
  expect(applyBlock('function f() {}\n', declaration, 'a.js')).toBe(declaration);
  // A file of many functions against a long block naming one of them over and over (the merge's name search).
  const many = Array.from({ length: 200 }, (_, i) => `function f${i}() {}\n`).join('');
  const calls = `function g() {\n${'f1x f1 '.repeat(20_000)}\n}\nmodule.exports = { f199, g };\n`;
  expect(applyBlock(many, calls, 'a.js')).toContain('module.exports = { f199, g };');
  // A first line that looks like a label and goes on and on.
  const label = `\`\`\`js\n//  ${'a'.repeat(200_000)}:${' '.repeat(200_000)}x\n\`\`\`\n`;
  expect(codeBlocks(label, ['a.js'])[0]?.path).toBeUndefined();
});

test('a block that adds a function and still uses one of the file\'s is merged in, not taken for the whole file', () => {
  const math = readFileSync(path.join(__dirname, '../../evals/coding/add-multiply/workspace/src/math.js'), 'utf8');
  // This model's whole answer to "Add a function multiply(a, b) ... and export it next to add" (EVALS.md).
  const reply = '```javascript\nfunction multiply(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, multiply };\n```';
  const out = applyAnswer(reply, [{ path: 'src/math.js', text: math }]).get('src/math.js') ?? '';
  const mod = { exports: {} as { add?: (a: number, b: number) => number; multiply?: (a: number, b: number) => number } };
  new Function('module', out)(mod);
  expect(mod.exports.add?.(2, 3)).toBe(5);
  expect(mod.exports.multiply?.(6, 7)).toBe(42);
  expect(out.match(/module\.exports/g)).toHaveLength(1);

  // Python: the new function goes after the file's, which the block's code calls.
  const py = 'def add(a, b):\n    return a + b\n\n\nprint(add(1, 2))\n';
  expect(applyBlock(py, 'def twice(a):\n    return add(a, a)\n', 'm.py')).toBe('def add(a, b):\n    return a + b\n\ndef twice(a):\n    return add(a, a)\n\n\nprint(add(1, 2))\n');
  // A block that names none of the file's functions is still the whole file.
  expect(applyBlock(py, 'def twice(a):\n    return a + a\n', 'm.py')).toBe('def twice(a):\n    return a + a\n');
});

test('a block labelled by a comment of its first line goes to that file, without the label', () => {
  const files = [
    { path: 'config.json', text: '{"port": 1}\n' },
    { path: 'solution.py', text: 'def f():\n    raise NotImplementedError\n' },
  ];
  const reply = '```json\n// config.json\n{"port": 2}\n```\n```python\n# ./solution.py\ndef f():\n    return 1\n```\n';
  expect(codeBlocks(reply, ['config.json', 'solution.py']).map((b) => b.path)).toEqual(['config.json', 'solution.py']);
  const written = applyAnswer(reply, files);
  expect(written.get('config.json')).toBe('{"port": 2}\n');
  expect(written.get('solution.py')).toBe('def f():\n    return 1\n');
  // A comment that is not one of the files' paths stays code.
  expect(codeBlocks('```js\n// helper.js\nx()\n```\n', ['a.js'])[0]).toEqual({ code: '// helper.js\nx()\n' });
});

test('the test file shown first does not take the code of the file it tests', () => {
  // The 1.5B model's answer to fix-sum, unlabelled: the files came test.js first.
  const test = "const assert = require('node:assert');\nconst { sum } = require('./src/sum');\n\nassert.strictEqual(sum([1, 2, 3, 4]), 10);\n";
  const sum = 'function sum(numbers) {\n  let total = 0;\n  for (let i = 0; i < numbers.length - 1; i++) total += numbers[i];\n  return total;\n}\n\nmodule.exports = { sum };\n';
  const fixed = 'function sum(numbers) {\n  let total = 0;\n  for (let i = 0; i < numbers.length; i++) total += numbers[i];\n  return total;\n}\n\nmodule.exports = { sum };\n';
  const written = applyAnswer('```javascript\n' + fixed + '```\n', [
    { path: 'test.js', text: test },
    { path: 'src/sum.js', text: sum },
  ]);
  expect([...written.keys()]).toEqual(['src/sum.js']);
  expect(written.get('src/sum.js')).toBe(fixed);
});
