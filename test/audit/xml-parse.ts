/**
 * A strict XML 1.0 well-formedness parser for the tests of the machine exports (no XML
 * parser is installed: no fast-xml-parser, @xmldom/xmldom, sax, nor an xmllint binary).
 * It accepts what the exports may contain and refuses what a conforming parser
 * refuses: one root element, tags that nest and match, attribute names unique per
 * element and values quoted without `<`, only the five predefined entities and
 * character references, no bare `&` or `<` in text, comments without `--`, an XML
 * declaration only at the very start, and names made of name characters. Namespace
 * prefixes are resolved: every element and attribute prefix must be declared, and
 * each element carries its namespace URI.
 */

export interface XmlElement {
  /** The qualified name as written (`xc:action`). */
  name: string;
  /** The local name (`action`). */
  local: string;
  /** The namespace URI the prefix (or the default namespace) resolves to; '' when none. */
  ns: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9._:-]*$/;

function decode(raw: string, where: number): string {
  if (/[<]/.test(raw)) throw new Error(`'<' in text or attribute value at ${where}`);
  return raw.replace(/&([^;]*);|&/g, (m, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare '&' at ${where}`);
    switch (ref) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
    }
    const num = /^#x([0-9A-Fa-f]+)$/.exec(ref) ?? /^#([0-9]+)$/.exec(ref);
    if (num === null) throw new Error(`unknown entity &${ref}; at ${where}`);
    const code = ref.startsWith('#x') ? parseInt(num[1], 16) : parseInt(num[1], 10);
    if (code === 0 || code > 0x10ffff) throw new Error(`bad character reference ${m} at ${where}`);
    return String.fromCodePoint(code);
  });
}

export function parseXml(text: string): XmlElement {
  let i = 0;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) throw new Error('a control character XML does not allow');
  if (text.startsWith('<?xml')) {
    const end = text.indexOf('?>');
    if (end < 0) throw new Error('unterminated XML declaration');
    if (!/^<\?xml\s+version="1\.[0-9]"(\s+encoding="[A-Za-z0-9._-]+")?(\s+standalone="(yes|no)")?\s*\?>$/.test(text.slice(0, end + 2))) {
      throw new Error('malformed XML declaration');
    }
    i = end + 2;
  }
  const skipMisc = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text.startsWith('<!--', i)) {
        const end = text.indexOf('-->', i + 4);
        if (end < 0) throw new Error('unterminated comment');
        if (text.slice(i + 4, end).includes('--') || text[end - 1] === '-') throw new Error(`'--' inside a comment at ${i}`);
        i = end + 3;
      } else if (text.startsWith('<?', i)) {
        if (text.startsWith('<?xml', i) && /\s/.test(text[i + 5] ?? '')) throw new Error(`XML declaration not at the start (${i})`);
        const end = text.indexOf('?>', i);
        if (end < 0) throw new Error('unterminated processing instruction');
        i = end + 2;
      } else return;
    }
  };

  const parseElement = (scopes: Map<string, string>): XmlElement => {
    if (text[i] !== '<') throw new Error(`expected '<' at ${i}`);
    i++;
    const nameMatch = /^[^\s/>]+/.exec(text.slice(i));
    if (nameMatch === null || !NAME.test(nameMatch[0])) throw new Error(`bad element name at ${i}`);
    const name = nameMatch[0];
    i += name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(text.slice(i))![0];
      i += ws.length;
      if (text.startsWith('/>', i) || text[i] === '>') break;
      if (ws.length === 0) throw new Error(`attributes must be separated by space at ${i}`);
      const m = /^([^\s=/>]+)\s*=\s*(["'])/.exec(text.slice(i));
      if (m === null || !NAME.test(m[1])) throw new Error(`bad attribute at ${i}`);
      if (m[1] in attrs) throw new Error(`attribute ${m[1]} twice on <${name}> at ${i}`);
      i += m[0].length;
      const end = text.indexOf(m[2], i);
      if (end < 0) throw new Error(`unterminated attribute value at ${i}`);
      attrs[m[1]] = decode(text.slice(i, end), i);
      i = end + 1;
    }
    const ns = new Map(scopes);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'xmlns') ns.set('', v);
      else if (k.startsWith('xmlns:')) {
        if (v === '') throw new Error(`empty namespace for prefix ${k}`);
        ns.set(k.slice(6), v);
      }
    }
    const prefixOf = (q: string) => (q.includes(':') ? q.slice(0, q.indexOf(':')) : '');
    for (const k of Object.keys(attrs)) {
      const p = prefixOf(k);
      if (p !== '' && p !== 'xmlns' && p !== 'xml' && !ns.has(p)) throw new Error(`undeclared prefix ${p} on attribute ${k}`);
    }
    const p = prefixOf(name);
    if (p !== '' && !ns.has(p)) throw new Error(`undeclared prefix ${p} on <${name}>`);
    const el: XmlElement = { name, local: name.slice(p === '' ? 0 : p.length + 1), ns: ns.get(p) ?? '', attrs, children: [], text: '' };
    if (text.startsWith('/>', i)) {
      i += 2;
      return el;
    }
    i++; // '>'
    for (;;) {
      const lt = text.indexOf('<', i);
      if (lt < 0) throw new Error(`<${name}> is never closed`);
      const raw = text.slice(i, lt);
      if (raw.includes(']]>')) throw new Error(`']]>' in text at ${i}`);
      el.text += decode(raw, i);
      i = lt;
      if (text.startsWith('</', i)) {
        const m = /^<\/([^\s>]+)\s*>/.exec(text.slice(i));
        if (m === null) throw new Error(`bad end tag at ${i}`);
        if (m[1] !== name) throw new Error(`</${m[1]}> closes <${name}> at ${i}`);
        i += m[0].length;
        return el;
      }
      if (text.startsWith('<!--', i) || text.startsWith('<?', i)) {
        skipMisc();
        continue;
      }
      if (text.startsWith('<![CDATA[', i)) {
        const end = text.indexOf(']]>', i);
        if (end < 0) throw new Error('unterminated CDATA');
        el.text += text.slice(i + 9, end);
        i = end + 3;
        continue;
      }
      if (text.startsWith('<!', i)) throw new Error(`markup declaration inside content at ${i}`);
      el.children.push(parseElement(ns));
    }
  };

  skipMisc();
  if (text.startsWith('<!DOCTYPE', i)) throw new Error('DOCTYPE not expected');
  const root = parseElement(new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]));
  skipMisc();
  if (i !== text.length) throw new Error(`content after the root element at ${i}`);
  return root;
}

/** Every element of the tree, depth first, the root first. */
export function elements(root: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    out.push(e);
    e.children.forEach(walk);
  };
  walk(root);
  return out;
}
