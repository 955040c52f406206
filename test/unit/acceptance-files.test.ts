import { acceptanceFiles, acceptanceWriteRefusal, isAcceptanceFile } from '../../src/loop/acceptance-files';

test('the files an acceptance command names are the words that are relative paths of tests', () => {
  expect(acceptanceFiles('node test.js')).toEqual(['test.js']);
  expect(acceptanceFiles('python3 -m pytest ./tests/a.py -q && node "check.mjs" && go test ./x_test.go && npx jest src/a.spec.ts')).toEqual(['tests/a.py', 'check.mjs', 'x_test.go', 'src/a.spec.ts']);
  expect(acceptanceFiles('npm test')).toEqual([]);
  // The code a command checks is the agent's to change: the doctests of solution.py, a syntax check, a linter.
  expect(acceptanceFiles('python3 -m doctest solution.py && node --check app.js && eslint src/latest.js')).toEqual([]);
  expect(acceptanceFiles('cat /etc/os-release ../up.js $X.js ~/.x.js -f.js')).toEqual([]);
  expect(acceptanceFiles(undefined)).toEqual([]);
});

test('a write of one of them is refused in any spelling; reads and other files are not', () => {
  const files = acceptanceFiles('node test.js');
  expect(isAcceptanceFile(files, './TEST.js')).toBe(true);
  expect(isAcceptanceFile(files, 'sub/../test.js')).toBe(true);
  expect(isAcceptanceFile(files, 'solution.js')).toBe(false);
  expect(acceptanceWriteRefusal(files, 'node test.js', 'edit_file', { file_path: './test.js', old_text: 'a', new_text: 'b' })).toBe(
    "./test.js is part of this run's acceptance check (`node test.js`): it is the operator's and read-only to you. Change the code it checks, not the check",
  );
  expect(acceptanceWriteRefusal(files, 'node test.js', 'write_file', { file_path: 'test.js', content: '' })).toBeDefined();
  expect(acceptanceWriteRefusal(files, 'node test.js', 'read_file', { file_path: 'test.js' })).toBeUndefined();
  expect(acceptanceWriteRefusal(files, 'node test.js', 'write_file', { file_path: 'solution.js', content: '' })).toBeUndefined();
});
