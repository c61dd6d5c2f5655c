/**
 * machines/index.ts lists every machine with its role: each file of machines/ that
 * defines a machine appears in MACHINE_ROLES (a new machine left out fails here), the
 * list and `machines` agree, every machine can be drawn, and each entry's files exist
 * and are what they claim: an executing file imports the machine's file, an agreement
 * test imports the machine's file or a file that executes it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateMachine } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';
import { MACHINE_ROLES, machines } from '../../machines/index';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The module specifiers a TypeScript file imports, resolved to repository paths without extension. */
function importsOf(file: string): Set<string> {
  const out = new Set<string>();
  for (const m of read(file).matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
    if (m[1].startsWith('.')) out.add(path.relative(root, path.resolve(path.dirname(path.join(root, file)), m[1])).replace(/\.ts$/, ''));
  }
  return out;
}
const noExt = (file: string) => file.replace(/\.ts$/, '');

describe('machines/index.ts', () => {
  it('lists every machine a file of machines/ defines, under its own file', async () => {
    const defined: { file: string; machine: unknown }[] = [];
    for (const name of readdirSync(path.join(root, 'machines')).filter((f) => f.endsWith('.ts')).sort()) {
      const mod = (await import(path.join(root, 'machines', name))) as Record<string, unknown>;
      for (const value of Object.values(mod)) if (value instanceof StateMachine) defined.push({ file: `machines/${name}`, machine: value });
    }
    expect(defined.length).toBeGreaterThanOrEqual(5);
    for (const d of defined) {
      const entry = MACHINE_ROLES.find((r) => r.machine === d.machine);
      expect(entry, `${d.file} defines a machine MACHINE_ROLES does not list`).toBeDefined();
      expect(entry!.file).toBe(d.file);
    }
  });

  it('the list and `machines` name the same machines, once each', () => {
    expect(MACHINE_ROLES.map((r) => r.id).sort()).toEqual(Object.keys(machines).sort());
    for (const r of MACHINE_ROLES) expect(r.machine).toBe(machines[r.id]);
    expect(new Set(MACHINE_ROLES.map((r) => r.machine)).size).toBe(MACHINE_ROLES.length);
  });

  it('every machine can be drawn', () => {
    for (const r of MACHINE_ROLES) {
      const graph = toDirectedGraph(r.machine);
      expect(graph.children.length, r.id).toBeGreaterThan(0);
    }
  });

  it('each entry says its role; its executing files import the machine; its agreement tests import the machine or what executes it', () => {
    for (const r of MACHINE_ROLES) {
      expect(r.role.length, `${r.id}: role`).toBeGreaterThan(80);
      expect(r.agreementTest.length, `${r.id}: agreement test`).toBeGreaterThan(0);
      // Every machine executes today; one that does not must say why in its role.
      if (r.executedBy.length === 0) expect(r.role).toMatch(/not execut/i);
      for (const file of [r.file, ...r.executedBy, ...r.agreementTest]) expect(existsSync(path.join(root, file)), `${r.id}: ${file}`).toBe(true);
      for (const file of r.executedBy) expect(importsOf(file), `${file} does not import ${r.file}`).toContain(noExt(r.file));
      for (const file of r.agreementTest) {
        const imports = importsOf(file);
        expect([r.file, ...r.executedBy].some((f) => imports.has(noExt(f))), `${file} imports neither ${r.file} nor what executes it`).toBe(true);
      }
    }
  });
});
