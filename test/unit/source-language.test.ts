import { sourceLanguageOf } from '../../src/loop/source-language';
import { languageOf } from '../../src/loop/code-answer';
import { namesChecked } from '../../src/activities/tools/dropped-names';

test('one reading of a file language, which each use narrows', () => {
  expect(sourceLanguageOf('lib/Util.PY')).toBe('python');
  expect(sourceLanguageOf('a/b.mjs')).toBe('javascript');
  expect(sourceLanguageOf('view.tsx')).toBe('typescript');
  expect(sourceLanguageOf('.js')).toBeUndefined();
  expect(sourceLanguageOf('dir.py/README')).toBeUndefined();
  // The code answer replaces functions of Python and JavaScript only; the names check reads TypeScript and JSX too.
  expect(languageOf('view.tsx')).toBeUndefined();
  expect(namesChecked('view.tsx')).toBe(true);
  expect(namesChecked('data.json')).toBe(false);
});
