/**
 * Every machine as the /audit page serves it (GET /v1/audit/machines): its model, its
 * role in execution (machines/index.ts MACHINE_ROLES) and its SVG drawing. elkjs lays
 * out asynchronously and the drawings never change while the process runs, so they are
 * laid out once per process, on first use, and the promise is kept.
 *
 * Pure apart from that cache: no I/O.
 */
import { MACHINE_ROLES, type MachineName } from '../../machines/index';
import { layoutMachine } from './layout';
import { machineModel, type MachineModel } from './machine-model';
import { laidOutToSvg } from './svg';

export interface CatalogMachine {
  name: MachineName;
  machineId: string;
  file: string;
  role: string;
  executedBy: string[];
  model: MachineModel;
  svg: string;
}

let catalog: Promise<CatalogMachine[]> | undefined;

/** The machines of MACHINE_ROLES, in its order, each drawn (laid out once per process). */
export function machineCatalog(): Promise<CatalogMachine[]> {
  catalog ??= Promise.all(
    MACHINE_ROLES.map(async (r) => {
      const model = machineModel(r.id, r.machine, r.file);
      return { name: r.id, machineId: model.machineId, file: r.file, role: r.role, executedBy: [...r.executedBy], model, svg: laidOutToSvg(await layoutMachine(model)) };
    }),
  ).catch((err: unknown) => {
    catalog = undefined; // a failed layout is tried again by the next request
    throw err;
  });
  return catalog;
}
