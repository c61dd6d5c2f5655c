/**
 * `npm run bridge:abi`: writes src/bridge/abi.ts, the contracts' ABIs as a TypeScript
 * module, from what solc compiles out of contracts/ (src/bridge/contracts.ts). Run it
 * after changing a contract's interface; test/bridge/abi.test.ts fails while the
 * committed file differs from the compiled ABIs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { abiModuleSource } from './abi-source';
import { contractArtifacts, REPO_ROOT } from './contracts';

const file = join(REPO_ROOT, 'src', 'bridge', 'abi.ts');
writeFileSync(file, abiModuleSource(contractArtifacts()));
process.stdout.write(`wrote ${file}\n`);
