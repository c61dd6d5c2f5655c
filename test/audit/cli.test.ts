/**
 * `npm run machines -- --format … --out DIR` (src/cli/machines.ts, issue 23 item 1):
 * for each format it writes one file per machine of machines/index.ts and DIR/index.json
 * listing them; the files are what the renderers give for the same model; a bad
 * format or a missing --out is refused. One run goes through the npm script's command
 * (a child process), the rest call the command in-process.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MACHINE_ROLES } from '../../machines/index';
import { EXPORT_EXTENSIONS, EXPORT_FORMATS, renderModel, type ExportIndex } from '../../src/audit/export';
import { machineModel, parseMachineModel } from '../../src/audit/machine-model';
import { machinesCommand } from '../../src/cli/machines';
import { ROOT, tempDir } from '../cli/run-cli';

const dir = tempDir('machines-export-');
afterAll(() => dir.remove());

const names = MACHINE_ROLES.map((r) => r.id);

describe('npm run machines', () => {
  it.each(EXPORT_FORMATS.map((f) => [f]))('--format %s writes one file per machine and the index', async (format) => {
    const out = join(dir.path, format);
    const written = await machinesCommand(['--format', format, '--out', out]);
    const expected = [...names.map((n) => `${n}.${EXPORT_EXTENSIONS[format]}`), 'index.json'];
    expect(written.sort()).toEqual([...expected].sort());
    expect(readdirSync(out).sort()).toEqual([...expected].sort());
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as ExportIndex;
    expect(index.formats).toEqual([format]);
    expect(index.machines.map((m) => m.name)).toEqual(names);
    for (const r of MACHINE_ROLES) {
      const entry = index.machines.find((m) => m.name === r.id)!;
      expect(entry.file).toBe(r.file);
      const text = readFileSync(join(out, entry.files[format]!), 'utf8');
      const model = machineModel(r.id, r.machine, r.file);
      expect(text).toBe(await renderModel(model, format));
      if (format === 'json') expect(parseMachineModel(text)).toEqual(model);
    }
  });

  it('refuses an unknown format and a missing --out, and writes nothing then', async () => {
    await expect(machinesCommand(['--format', 'png', '--out', join(dir.path, 'bad')])).rejects.toThrow(/unknown format png/);
    await expect(machinesCommand(['--format', 'json'])).rejects.toThrow(/--out/);
    expect(existsSync(join(dir.path, 'bad'))).toBe(false);
  });

  it('runs as the npm script does, several formats at once', async () => {
    const out = join(dir.path, 'script');
    const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.machines as string;
    expect(script).toBe('node --import tsx src/cli/machines.ts');
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/machines.ts'), '--format', 'json,mermaid', '--out', out], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^wrote ${names.length * 2 + 1} files`));
    expect(readdirSync(out).length).toBe(names.length * 2 + 1);
  });
});
