/**
 * The decision records (issue 40 item 3): docs/decisions/NNN-short-title.md, one decision a
 * file, and docs/decisions/README.md, their index.
 *   - every file is named `NNN-words.md`, opens with `# N. Title` (N its own number), has a
 *     **Status** line of a known form and the sections Context, Decision, Consequences;
 *   - a "revised by N" or "superseded by N" names a later decision that exists, and a
 *     decision that supersedes another cites it;
 *   - the index lists every file, once, with the same title, link and status, and nothing
 *     else; every number up to the highest is a file or listed as a number without a
 *     decision, so a number is never reused;
 *   - every `decision N` (or `decisions N, M`, `N and M`, `N–M`) cited in src/, actors/,
 *     machines/, sim/, bench/, test/, docs/ or README.md names a decision that exists and
 *     is not withdrawn (a superseded one may still be cited: its history is the point).
 * The checks are one pure function over a tree of texts: it finds nothing on the real
 * tree, and finds each fault on a small tree made to break each rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const DIR = 'docs/decisions';
/** Where a decision may be cited. */
const CITING = ['src', 'actors', 'machines', 'sim', 'bench', 'test', 'docs', 'README.md'];
/** This file: its made-up trees cite decisions that do not exist. */
const SELF = 'test/docs/decisions.test.ts';

/** The texts the checks read: the decision files by name, the index, and every citing file by path. */
export interface DecisionTree {
  files: Map<string, string>;
  index: string;
  citing: Map<string, string>;
}

const STATUS = /^\*\*Status:\*\* (accepted|accepted, revised by (\d+(?:, \d+)*)|superseded by (\d+)|withdrawn)$/m;
const FILE_NAME = /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const SECTIONS = ['## Context', '## Decision', '## Consequences'];

interface Decision {
  n: number;
  file: string;
  title: string;
  status: string;
  /** The decisions its status names: the revisers, or the one that superseded it. */
  later: number[];
  withdrawn: boolean;
}

/** The numbers a citation names: `decision 5`, `decisions 82 and 83`, `decisions 52, 97`, `decisions 90–92`. */
export function citedDecisions(text: string): number[] {
  const out: number[] = [];
  // A space, or one line break (a comment's `*` or `//` after it): never a blank line, so a
  // heading's last word and the next paragraph's first number are not a citation.
  const gap = String.raw`(?:[ \t]+|[ \t]*\n[ \t]*(?:\*|\/\/)?[ \t]*)`;
  const re = new RegExp(String.raw`\bdecisions?${gap}(\d+)((?:${gap}?(?:,|–|-|\band\b|\bor\b)${gap}?\d+)*)`, 'gi');
  for (const m of text.matchAll(re)) {
    out.push(Number(m[1]));
    let prev = Number(m[1]);
    for (const part of m[2].matchAll(/(,|–|-|and|or)[\s*/]*(\d+)/g)) {
      const n = Number(part[2]);
      // A range names every number in it (bounded: a range is a few decisions, not a span of prose).
      if ((part[1] === '–' || part[1] === '-') && n > prev && n - prev <= 20) for (let k = prev + 1; k < n; k++) out.push(k);
      out.push(n);
      prev = n;
    }
  }
  return out;
}

/** The numbers the index says have no decision: the list that opens its section "Numbers without a decision". */
function unassigned(index: string): number[] {
  const section = index.split(/^## Numbers without a decision$/m)[1];
  if (!section) return [];
  const head = section.trim().split(':')[0];
  return [...head.matchAll(/\d+/g)].map((m) => Number(m[0]));
}

/** Every fault of the tree, one line each; none on a sound tree. */
export function decisionProblems(tree: DecisionTree): string[] {
  const problems: string[] = [];
  const byNumber = new Map<number, Decision>();
  for (const [file, text] of tree.files) {
    const name = FILE_NAME.exec(file);
    if (!name) {
      problems.push(`${file}: not named NNN-short-title.md`);
      continue;
    }
    const n = Number(name[1]);
    const head = /^# (\d+)\. (.+)$/m.exec(text.split('\n')[0]);
    if (!head || Number(head[1]) !== n) problems.push(`${file}: the first line is not "# ${n}. Title"`);
    const status = STATUS.exec(text);
    if (!status) problems.push(`${file}: no valid **Status:** line`);
    let at = -1;
    for (const s of SECTIONS) {
      const i = text.indexOf(`\n${s}\n`);
      if (i < 0 || i < at) problems.push(`${file}: section "${s}" missing or out of order`);
      at = i;
    }
    if (byNumber.has(n)) problems.push(`${file}: number ${n} is also ${byNumber.get(n)!.file}`);
    const later = status ? (status[2] ?? status[3] ?? '').split(', ').filter(Boolean).map(Number) : [];
    byNumber.set(n, { n, file, title: head?.[2] ?? '', status: status?.[1] ?? '', later, withdrawn: status?.[1] === 'withdrawn' });
  }
  for (const d of byNumber.values()) {
    for (const m of d.later) {
      if (!byNumber.has(m)) problems.push(`${d.file}: its status names decision ${m}, which does not exist`);
      else if (m <= d.n) problems.push(`${d.file}: its status names decision ${m}, which is not later`);
    }
    // A decision that replaces another whole says so: the reader of the new one learns what it replaced.
    const by = /^superseded by (\d+)$/.exec(d.status);
    const successor = by ? byNumber.get(Number(by[1])) : undefined;
    if (successor && !citedDecisions(tree.files.get(successor.file)!).includes(d.n)) {
      problems.push(`${successor.file}: supersedes decision ${d.n} but never cites it`);
    }
  }

  // The index: one row per file, the same title, link and status.
  const rows = new Map<number, { title: string; link: string; status: string }>();
  for (const m of tree.index.matchAll(/^\| (\d+) \| \[(.+)\]\(([^)]+)\) \| ([^|]+) \|$/gm)) {
    const n = Number(m[1]);
    if (rows.has(n)) problems.push(`index: decision ${n} listed twice`);
    rows.set(n, { title: m[2].replace(/\\\|/g, '|'), link: m[3], status: m[4].trim() });
  }
  for (const d of byNumber.values()) {
    const row = rows.get(d.n);
    if (!row) problems.push(`index: decision ${d.n} (${d.file}) not listed`);
    else {
      if (row.title !== d.title) problems.push(`index: decision ${d.n}'s title is "${row.title}", its file says "${d.title}"`);
      if (row.link !== d.file) problems.push(`index: decision ${d.n} links ${row.link}, not ${d.file}`);
      if (row.status !== d.status) problems.push(`index: decision ${d.n}'s status is "${row.status}", its file says "${d.status}"`);
    }
  }
  for (const n of rows.keys()) if (!byNumber.has(n)) problems.push(`index: decision ${n} listed but has no file`);

  // Numbers are never reused: each one up to the highest is a file or explained.
  const gaps = new Set(unassigned(tree.index));
  const highest = Math.max(0, ...byNumber.keys());
  for (let n = 1; n <= highest; n++) {
    if (!byNumber.has(n) && !gaps.has(n)) problems.push(`number ${n}: no file, and the index does not explain it`);
    if (byNumber.has(n) && gaps.has(n)) problems.push(`number ${n}: has a file, and the index lists it as without a decision`);
  }

  // Citations: each names a decision that exists and is not withdrawn.
  for (const [path, text] of tree.citing) {
    for (const n of new Set(citedDecisions(text))) {
      const d = byNumber.get(n);
      if (!d) problems.push(`${path}: cites decision ${n}, which does not exist`);
      else if (d.withdrawn) problems.push(`${path}: cites decision ${n}, which is withdrawn`);
    }
  }
  return problems;
}

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

function filesUnder(dir: string): string[] {
  if (!statSync(join(ROOT, dir)).isDirectory()) return [dir];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(ROOT, d)).sort()) {
      const p = `${d}/${name}`;
      if (name === 'node_modules' || name.startsWith('.')) continue;
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else if (/\.(ts|mts|mjs|js|md|sol|sh)$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function realTree(): DecisionTree {
  const files = new Map<string, string>();
  for (const name of readdirSync(join(ROOT, DIR)).sort()) {
    if (name !== 'README.md') files.set(name, read(`${DIR}/${name}`));
  }
  const citing = new Map<string, string>();
  for (const root of CITING) for (const p of filesUnder(root)) if (p !== SELF) citing.set(p, read(p));
  return { files, index: read(`${DIR}/README.md`), citing };
}

const file = (n: number, title: string, status: string) =>
  `# ${n}. ${title}\n\n**Status:** ${status}\n\n## Context\n\nWhy.\n\n## Decision\n\nWhat.\n\n## Consequences\n\nSo.\n`;
const row = (n: number, title: string, link: string, status: string) => `| ${n} | [${title}](${link}) | ${status} |`;

describe('docs/decisions/', () => {
  it('holds the decisions, each with its status, all in the index, every citation defined and in force', () => {
    const tree = realTree();
    expect(tree.files.size).toBeGreaterThan(100);
    expect(tree.citing.size).toBeGreaterThan(300);
    expect(decisionProblems(tree)).toEqual([]);
  });

  it('reads every citation form the code uses', () => {
    expect(citedDecisions('// decision 58; see decisions 82 and 83, decisions 52, 97')).toEqual([58, 82, 83, 52, 97]);
    expect(citedDecisions('(issue 24, decisions 90–92) and Decisions 128-129; decision 74 (e)')).toEqual([90, 91, 92, 128, 129, 74]);
    expect(citedDecisions('/** as decision\n * 58 and\n * 97 say */')).toEqual([58, 97]);
    expect(citedDecisions('this.counters.decisions++; decisions: 0; ## Without a decision\n\n107, 108')).toEqual([]);
  });

  it('finds each fault on a tree made to break each rule', () => {
    const tree: DecisionTree = {
      files: new Map([
        ['001-first.md', file(1, 'First', 'accepted, revised by 3')],
        ['002-second.md', file(2, 'Second', 'superseded by 9')],
        ['005-fifth.md', file(5, 'Fifth', 'superseded by 7')],
        ['007-seventh.md', file(7, 'Seventh', 'accepted')],
        ['003-third.md', file(3, 'Third', 'withdrawn')],
        ['004-fourth.md', file(4, 'Fourth', 'maybe').replace('## Context\n\nWhy.\n\n', '')],
        ['006-sixth.md', file(7, 'Sixth', 'accepted')],
        ['Eight.md', file(8, 'Eight', 'accepted')],
      ]),
      index: [
        '## Numbers without a decision', '', '6: never assigned.', '', '## Index', '',
        row(1, 'First', '001-first.md', 'accepted, revised by 3'),
        row(2, 'Second', '002-second.md', 'accepted'),
        row(3, 'The third', '003-third.md', 'withdrawn'),
        row(4, 'Fourth', '004-fourth.md', 'maybe'),
        row(5, 'Fifth', '005-fifth.md', 'superseded by 7'),
        row(7, 'Seventh', '007-seventh.md', 'accepted'),
        row(10, 'Tenth', '010-tenth.md', 'accepted'),
      ].join('\n'),
      citing: new Map([
        ['src/a.ts', '// decision 1; decisions 2 and 3'],
        ['docs/b.md', 'As decision 11 says.'],
      ]),
    };
    expect(decisionProblems(tree).sort()).toEqual(
      [
        '002-second.md: its status names decision 9, which does not exist',
        '004-fourth.md: no valid **Status:** line',
        '007-seventh.md: supersedes decision 5 but never cites it',
        '004-fourth.md: section "## Context" missing or out of order',
        '006-sixth.md: the first line is not "# 6. Title"',
        'Eight.md: not named NNN-short-title.md',
        'index: decision 10 listed but has no file',
        'index: decision 2\'s status is "accepted", its file says "superseded by 9"',
        'index: decision 3\'s title is "The third", its file says "Third"',
        'index: decision 4\'s status is "maybe", its file says ""',
        'index: decision 6 (006-sixth.md) not listed',
        'number 6: has a file, and the index lists it as without a decision',
        'src/a.ts: cites decision 3, which is withdrawn',
        'docs/b.md: cites decision 11, which does not exist',
      ].sort(),
    );
  });
});
