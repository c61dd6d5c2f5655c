/**
 * The spec map and the contract stay true to the tree (issue 19 item 6):
 *   - every path docs/spec-map.md names exists, and every link between the docs pages
 *     of the contract resolves;
 *   - the map is complete: every TxKind, every file of src/state/ops, every machine of
 *     machines/index.ts and every route file of src/api/routes is named in it;
 *   - every contract id is defined once (docs/contract/*.md), and every id the code,
 *     the map or the docs cite (`[C-…]`, `[D-…]`, a whole section `[C-section-*]`, bare
 *     in the map) is defined;
 *   - no comment in src/, actors/, machines/, sim/, bench/ or test/ cites the contract
 *     in an old form (`DECISIONS`, `spec "…"`, `docs/decisions.md N`, a decision's file, …) or points
 *     outside the repository: the one form is `contract [C-…]` / `contract [D-…]`, and
 *     `decision N` for docs/decisions/ (test/docs/decisions.test.ts checks that N exists).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TxKind } from '../../src/codec/tx';
import { machines } from '../../machines/index';

const ROOT = resolve(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const MAP = 'docs/spec-map.md';
const CONTRACT_DIR = 'docs/contract';
/** Where the code that may cite the contract lives. */
const SOURCE_DIRS = ['src', 'actors', 'machines', 'sim', 'bench', 'test'];
/** Roots a path in the map may start with (other backticked text is code: names, routes). */
const PATH_ROOTS = /^(src|actors|machines|sim|test|docs|genesis|bench|scripts)\//;
/** A contract id: `C-` (the specification) or `D-` (the decisions beside it), then lower-case words. */
const ID = String.raw`[CD]-[a-z0-9]+(?:-[a-z0-9]+)*`;

function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(ROOT, d)).sort()) {
      const p = `${d}/${name}`;
      if (name === 'node_modules') continue;
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else if (ext.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The comments of a TypeScript file (line and block), where citations live. */
function comments(text: string): string {
  return (text.match(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g) ?? []).join('\n');
}

const contractPages = () => filesUnder(CONTRACT_DIR, /\.md$/);

/** Ids defined in the contract pages: a list item opening with **[id]**. */
function definedIds(): Map<string, string> {
  const defined = new Map<string, string>();
  const dupes: string[] = [];
  for (const page of contractPages()) {
    for (const m of read(page).matchAll(new RegExp(String.raw`^- \*\*\[(${ID})\]\*\*`, 'gm'))) {
      if (defined.has(m[1])) dupes.push(`${m[1]} (${defined.get(m[1])} and ${page})`);
      defined.set(m[1], page);
    }
  }
  expect(dupes, 'ids defined twice').toEqual([]);
  return defined;
}

/** Ids cited as `[C-…]`, and whole sections as `[C-section-*]` (kept with their `-*`). */
const citedIds = (text: string) => [...text.matchAll(new RegExp(String.raw`\[(${ID}(?:-\*)?)\]`, 'g'))].map((m) => m[1]);

/** Whether a cited id, or a cited section `X-section-*`, is defined. */
function isDefined(defined: Map<string, string>, cited: string): boolean {
  if (!cited.endsWith('-*')) return defined.has(cited);
  const prefix = cited.slice(0, -1);
  return [...defined.keys()].some((id) => id.startsWith(prefix));
}

/**
 * The old ways the code cited the contract, before the one form, and paths to files
 * kept outside the repository. Matched in comments only (`spec` is also a variable name
 * in src/cli/args.ts).
 */
const OLD_CITATION_FORMS: ReadonlyArray<{ form: string; re: RegExp }> = [
  { form: 'DECISIONS / DECISIONS.md (now: contract [D-…])', re: /\bDECISIONS\b/ },
  // Not the names of the repository's own pages (docs/spec-map.md, docs/contract/spec.md).
  { form: 'spec, the spec\'s, spec "…", (spec: …) (now: contract [C-…])', re: /(?<![\w/-])spec(?:'s|s)?\b(?![-.]\w)/i },
  { form: 'docs/decisions.md N, docs/decisions/NNN-….md (now: decision N)', re: /docs\/decisions(?:\.md|\/\d)/ },
  { form: 'a path outside the repository (now: the page in docs/ that restates it)', re: /\.\.\/shared\/|\/work\/|exchange-service\.md|ARCHITECTURE\.md|STYLE\.md/ },
];

/** This file: it holds the old forms as its own test data. */
const SELF = 'test/docs/spec-map.test.ts';

describe('docs/spec-map.md names only what exists', () => {
  it('every path it names exists', () => {
    const text = read(MAP);
    const paths = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]).filter((p) => PATH_ROOTS.test(p));
    expect(paths.length).toBeGreaterThan(50);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('every relative link of the map and the contract pages resolves', () => {
    const broken: string[] = [];
    for (const page of [MAP, ...contractPages()]) {
      for (const m of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(m[1])) continue;
        const target = relative(ROOT, resolve(join(ROOT, dirname(page)), m[1]));
        if (!existsSync(join(ROOT, target))) broken.push(`${page} → ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('docs/spec-map.md is complete', () => {
  const text = read(MAP);

  it('names every transaction kind, and no kind that does not exist', () => {
    const kinds = Object.keys(TxKind).filter((k) => Number.isNaN(Number(k)));
    expect(kinds.length).toBeGreaterThan(10);
    expect(kinds.filter((k) => !text.includes(`\`TxKind.${k}\``))).toEqual([]);
    const named = [...text.matchAll(/TxKind\.([A-Za-z]+)/g)].map((m) => m[1]);
    expect(named.filter((k) => !kinds.includes(k))).toEqual([]);
  });

  it('names every file of src/state/ops, every machine and every route file', () => {
    const required = [
      ...filesUnder('src/state/ops', /\.ts$/),
      ...Object.keys(machines).map((name) => `machines/${name}.ts`),
      ...filesUnder('src/api/routes', /\.ts$/),
    ];
    expect(required.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
    expect(required.filter((p) => !text.includes(`\`${p}\``))).toEqual([]);
  });
});

describe('contract ids', () => {
  const defined = definedIds();

  it('the contract pages define the rules of both sources', () => {
    const ids = [...defined.keys()];
    expect(ids.filter((id) => id.startsWith('C-')).length).toBeGreaterThan(100);
    expect(ids.filter((id) => id.startsWith('D-')).length).toBeGreaterThan(40);
  });

  it('every id cited in src/, actors/, machines/, sim/, bench/ and test/ is defined', () => {
    const undefinedCites: string[] = [];
    for (const dir of SOURCE_DIRS) {
      for (const file of filesUnder(dir, /\.ts$/)) {
        if (file === SELF) continue;
        for (const id of citedIds(read(file))) if (!isDefined(defined, id)) undefinedCites.push(`${file}: ${id}`);
      }
    }
    expect(undefinedCites).toEqual([]);
  });

  it('every id cited in docs/ is defined, and every section the map names has rules', () => {
    const bad: string[] = [];
    for (const page of filesUnder('docs', /\.md$/)) {
      for (const id of citedIds(read(page))) if (!isDefined(defined, id)) bad.push(`${page}: ${id}`);
    }
    // The map names rules bare, and whole sections as `C-section-*`.
    for (const m of read(MAP).matchAll(new RegExp(String.raw`(?<![A-Za-z0-9-])${ID}(?:-\*)?`, 'g'))) {
      if (!isDefined(defined, m[0])) bad.push(`${MAP}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('one citation form', () => {
  it('no comment cites the contract in an old form or points outside the repository', () => {
    const offending: string[] = [];
    for (const dir of SOURCE_DIRS) {
      for (const file of filesUnder(dir, /\.ts$/)) {
        if (file === SELF) continue;
        for (const c of comments(read(file)).split('\n')) {
          for (const { form, re } of OLD_CITATION_FORMS) if (re.test(c)) offending.push(`${file}: ${form}: ${c.trim()}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('the old forms are recognised', () => {
    const hits = (s: string) => OLD_CITATION_FORMS.filter(({ re }) => re.test(comments(s))).length;
    expect(hits('// per DECISIONS')).toBe(1);
    expect(hits('/** (spec "Agent caps") */')).toBe(1);
    expect(hits('// the spec\'s rate')).toBe(1);
    expect(hits('// docs/decisions.md 53')).toBe(1);
    expect(hits('// docs/decisions/053-orderbook-positions-liquidated-pool-taking.md')).toBe(1);
    expect(hits('// as ../shared/ARCHITECTURE.md says')).toBe(1);
    expect(hits('// the map, docs/spec-map.md; the rules, docs/contract/spec.md')).toBe(0);
    expect(hits('// contract [C-limits-batch]; decision 58')).toBe(0);
    expect(hits('const spec = parse(flags, spec); // FlagSpec')).toBe(0);
  });
});
