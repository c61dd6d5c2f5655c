/**
 * The contract's status marks stay honest (issue 40 item 3). Every rule of
 * docs/contract/spec.md and spec-decisions.md ends with its status in italics:
 *   - *built…*: some test (under test/, or a `*.test.ts`) cites the rule by its id (`contract [C-…]` in a
 *     comment or a test's title), so a claim of "built" names the test that shows it;
 *   - *partly: …* and *open …*: the text names what is missing by its open issue (`#N`),
 *     and every issue so named is listed in docs/contract/README.md ("Open issues named"),
 *     which lists no other: closing an issue means revisiting the rules that name it;
 *   - *no rule…* (the specification leaves the point open) and *retired…* need neither.
 * The checks are one pure function over the pages' texts and the test files' texts: it
 * finds nothing on the real tree, and finds each fault on small pages made to break them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const PAGES = ['docs/contract/spec.md', 'docs/contract/spec-decisions.md'];
const README = 'docs/contract/README.md';
/** Tests of the docs themselves cite ids as data, not as a test that shows the rule. */
const NOT_SHOWING = /^test\/docs\//;

export interface Rule {
  id: string;
  page: string;
  status: string;
}

/** Each rule of a page: a list item opening with **[id]**, up to the next item or heading; its status is its last italic text. */
export function rulesOf(page: string, text: string): Rule[] {
  const rules: Rule[] = [];
  let cur: { id: string; lines: string[] } | null = null;
  const flush = () => {
    if (!cur) return;
    const body = cur.lines.join(' ');
    const m = /(?<!\*)\*([^*]+)\*\s*$/.exec(body);
    rules.push({ id: cur.id, page, status: m ? m[1].trim() : '' });
    cur = null;
  };
  for (const line of text.split('\n')) {
    const item = /^- \*\*\[([CD]-[a-z0-9]+(?:-[a-z0-9]+)*)\]\*\*/.exec(line);
    if (item || line.startsWith('#') || line.trim() === '') {
      flush();
      if (item) cur = { id: item[1], lines: [line] };
    } else if (cur) cur.lines.push(line.trim());
  }
  flush();
  return rules;
}

/** The issues README.md says statuses name: the `#N` of its "Open issues named" paragraph. */
export function openIssuesNamed(readme: string): number[] {
  const para = readme.split(/\n\s*\n/).find((p) => p.startsWith('Open issues named'));
  return para ? [...para.matchAll(/#(\d+)/g)].map((m) => Number(m[1])) : [];
}

/** Every fault, one line each: a status of no known kind, a built rule no test cites, an open or partly one that names no issue, an issue named but not listed (or listed but not named). */
export function statusProblems(rules: Rule[], readme: string, tests: Map<string, string>): string[] {
  const problems: string[] = [];
  const cited = new Set<string>();
  for (const [path, text] of tests) {
    if (NOT_SHOWING.test(path)) continue;
    for (const m of text.matchAll(/\[([CD]-[a-z0-9]+(?:-[a-z0-9]+)*)\]/g)) cited.add(m[1]);
  }
  const listed = new Set(openIssuesNamed(readme));
  const named = new Set<number>();
  for (const r of rules) {
    const kind = /^(built|partly|open|no rule|retired)\b/.exec(r.status)?.[1];
    if (!kind) {
      problems.push(`${r.id}: status "${r.status}" is none of built, partly, open, no rule, retired`);
      continue;
    }
    const issues = [...r.status.matchAll(/#(\d+)/g)].map((m) => Number(m[1]));
    for (const n of issues) named.add(n);
    if (kind === 'built' && !cited.has(r.id)) problems.push(`${r.id}: marked built, but no test under test/ cites [${r.id}]`);
    if ((kind === 'partly' || kind === 'open') && issues.length === 0) {
      problems.push(`${r.id}: marked ${kind}, but names no open issue (#N) for what is missing`);
    }
    for (const n of issues) if (!listed.has(n)) problems.push(`${r.id}: names #${n}, which ${README} does not list among the open issues named`);
  }
  for (const n of listed) if (!named.has(n)) problems.push(`${README}: lists #${n}, which no rule names`);
  return problems;
}

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** Every file under test/, and every `*.test.ts` beside the code (where vitest also looks). */
function testFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, keep: RegExp) => {
    for (const name of readdirSync(join(ROOT, d)).sort()) {
      const p = `${d}/${name}`;
      if (name === 'node_modules') continue;
      if (statSync(join(ROOT, p)).isDirectory()) walk(p, keep);
      else if (keep.test(name)) out.set(p, read(p));
    }
  };
  walk('test', /\.ts$/);
  for (const d of ['src', 'actors', 'machines']) walk(d, /\.test\.ts$/);
  return out;
}

describe('docs/contract statuses', () => {
  it('every rule has a status; built rules are cited by a test; open and partly ones name their issue', () => {
    const rules = PAGES.flatMap((p) => rulesOf(p, read(p)));
    expect(rules.length).toBeGreaterThan(180);
    expect(statusProblems(rules, read(README), testFiles())).toEqual([]);
  });

  it('finds each fault on pages made to break the rules', () => {
    // The made-up ids are written {C-…} and bracketed here, so that spec-map.test.ts,
    // which checks every [C-…] a test file cites, does not read them as citations.
    const br = (s: string) => s.replace(/\{/g, '[').replace(/\}/g, ']');
    const page = br([
      '## 1. A section',
      '',
      '- **{C-x-shown}** Shown by a test. *built*',
      '- **{C-x-unshown}** Claimed, never tested.',
      '  *built: says so*',
      '- **{C-x-vague}** Half done. *partly: some of it*',
      '- **{C-x-later}** Not yet. *open #7*',
      '- **{C-x-closed}** Waits on a closed issue. *open #5*',
      '- **{C-x-none}** Nothing. *maybe*',
      '- **{C-x-free}** The spec is silent. *no rule*',
    ].join('\n'));
    const rules = rulesOf('spec.md', page);
    expect(rules.map((r) => r.status)).toEqual(['built', 'built: says so', 'partly: some of it', 'open #7', 'open #5', 'maybe', 'no rule']);
    const readme = 'Intro.\n\nOpen issues named: #7 the later work, #9 an issue no rule names.\n';
    const tests = new Map([
      ['test/a.test.ts', br('// contract {C-x-shown}')],
      ['test/docs/ids.test.ts', br("expect(cited('{C-x-unshown}'))")],
    ]);
    expect(statusProblems(rules, readme, tests).sort()).toEqual(
      [
        'C-x-unshown: marked built, but no test under test/ cites {C-x-unshown}',
        'C-x-vague: marked partly, but names no open issue (#N) for what is missing',
        'C-x-closed: names #5, which docs/contract/README.md does not list among the open issues named',
        'C-x-none: status "maybe" is none of built, partly, open, no rule, retired',
        'docs/contract/README.md: lists #9, which no rule names',
      ]
        .map(br)
        .sort(),
    );
  });
});
