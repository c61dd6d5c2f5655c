/**
 * Every machine of machines/index.ts in one of the four export formats (issue 23
 * item 1): the JSON model (machine-model.ts), SCXML, mermaid and SVG drawn from it.
 * What `npm run machines` writes (src/cli/machines.ts) and what the /audit page will
 * serve; no fs here.
 */
import { MACHINE_ROLES } from '../../machines/index';
import { layoutMachine } from './layout';
import { machineModel, type MachineModel } from './machine-model';
import { modelToMermaid } from './mermaid';
import { modelToScxml } from './scxml';
import { laidOutToSvg } from './svg';

export const EXPORT_FORMATS = ['json', 'scxml', 'mermaid', 'svg'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** File extension of each format. */
export const EXPORT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = { json: 'json', scxml: 'scxml', mermaid: 'mmd', svg: 'svg' };

/** The model of every machine MACHINE_ROLES lists, in its order. */
export function allMachineModels(): MachineModel[] {
  return MACHINE_ROLES.map((r) => machineModel(r.id, r.machine, r.file));
}

export async function renderModel(model: MachineModel, format: ExportFormat): Promise<string> {
  switch (format) {
    case 'json':
      return `${JSON.stringify(model, null, 2)}\n`;
    case 'scxml':
      return modelToScxml(model);
    case 'mermaid':
      return modelToMermaid(model);
    case 'svg':
      return laidOutToSvg(await layoutMachine(model));
  }
}

/** The index written beside the exports: which machine is in which file. */
export interface ExportIndex {
  format: 'exchange-chain/machine-export-index';
  version: 1;
  formats: ExportFormat[];
  machines: { name: string; machineId: string; file: string | null; states: number; transitions: number; files: Partial<Record<ExportFormat, string>> }[];
}

/** Every machine in the given formats: file name → text, and the index (its own file, index.json). */
export async function exportAll(formats: readonly ExportFormat[]): Promise<{ files: Map<string, string>; index: ExportIndex }> {
  const files = new Map<string, string>();
  const index: ExportIndex = { format: 'exchange-chain/machine-export-index', version: 1, formats: [...formats], machines: [] };
  for (const model of allMachineModels()) {
    const entry: ExportIndex['machines'][number] = {
      name: model.name,
      machineId: model.machineId,
      file: model.file,
      states: countStates(model),
      transitions: model.transitions.length,
      files: {},
    };
    for (const format of formats) {
      const name = `${model.name}.${EXPORT_EXTENSIONS[format]}`;
      if (name === 'index.json') throw new Error('a machine named index would overwrite the index');
      files.set(name, await renderModel(model, format));
      entry.files[format] = name;
    }
    index.machines.push(entry);
  }
  return { files, index };
}

function countStates(model: MachineModel): number {
  let count = 0;
  const walk = (s: MachineModel['root']) => {
    count++;
    s.states.forEach(walk);
  };
  walk(model.root);
  return count;
}
