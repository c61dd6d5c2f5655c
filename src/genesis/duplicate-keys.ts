/**
 * The duplicate-key check of a genesis file's JSON text. JSON.parse keeps the last of
 * duplicate keys silently, so the text itself is scanned once more before parseGenesis.
 *
 * Separate from the field readers (./fields.ts) because it reads the raw text, not the
 * parsed value: a small scanner of its own, with nothing in common with them but the
 * field paths of its errors.
 */
import { childPath, fail, ROOT } from './fields';

/**
 * JSON.parse keeps the last of duplicate keys silently; a genesis file with a key twice is
 * almost certainly an editing mistake, so reject it. `text` must already be valid JSON.
 */
export function assertNoDuplicateKeys(text: string): void {
  let i = 0;
  const skipWs = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++; // closing quote
    return JSON.parse(text.slice(start, i)) as string;
  };
  const readValue = (path: string): void => {
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      skipWs();
      if (text[i] === '}') {
        i++;
        return;
      }
      const keys = new Set<string>();
      for (;;) {
        skipWs();
        const key = readString();
        if (keys.has(key)) fail(childPath(path, key), 'appears more than once in the JSON text');
        keys.add(key);
        skipWs();
        i++; // ':'
        readValue(childPath(path, key));
        skipWs();
        if (text[i++] === ',') continue;
        return; // '}'
      }
    }
    if (c === '[') {
      i++;
      skipWs();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        readValue(`${path}[${index}]`);
        skipWs();
        if (text[i++] === ',') continue;
        return; // ']'
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++; // number, true, false, null
  };
  readValue(ROOT);
}
