/**
 * `npm run node -- validator register|unbond|unjail`: the transactions it signs with a
 * key file are the ones execution admits (shape, signature over the key's chain id, the
 * candidate as signer), and against a real node it prints the node's refusal and exits 1
 * (a fresh key has no operator's approval to register — 403 at the node's door before
 * its funds are looked at, decision 159 — and is no validator to unjail).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTx, TxKind } from '../../src/codec/tx';
import type { RegisterValidatorBody, UnbondBody } from '../../src/codec/txs/validators';
import { registerTx, leaveOrReturnTx, seedOperationJson, tokensToWei } from '../../src/cli/validator-ops';
import { operationFromJson } from '../../src/codec/txs/governance-json';
import { approvalTx } from '../../src/onboarding/approval';
import { devnetOperatorKey } from '../../src/onboarding/operator-key';
import { operationShape } from '../../src/state/governance/operations';
import { approveValidatorOp } from '../../src/state/ops/validator-approval';
import { generateNodeKeys } from '../../src/node/keyfile';
import { registerValidatorOp } from '../../src/state/ops/validator-registration';
import { unbondOp } from '../../src/state/ops/validator-unbond';
import { unjailOp } from '../../src/state/ops/validator-unjail';
import { genesisHashHex } from '../../src/genesis/load';
import { devnetGenesis, useDevnetNode } from '../helpers/devnet';
import { runCli, tempDir } from './run-cli';

const { genesis } = devnetGenesis(1);
const binding = { network: genesis.network, chainId: genesis.chainId, genesisHash: genesisHashHex(genesis) };
const keyAddress = '0x00000000000000000000000000000000000000aa' as const;

describe('validator transactions signed from a key file', () => {
  it('RegisterValidator passes the shape checks and recovers to the candidate over the key file chain id', async () => {
    const keys = await generateNodeKeys(binding);
    const tx = decodeTx(registerTx(keys, { bondWei: tokensToWei('1000000'), name: 'seventh', endpoint: '127.0.0.1:9060', nonce: 5n }), 1 << 20);
    expect(tx.kind).toBe(TxKind.RegisterValidator);
    const body = tx.body as RegisterValidatorBody;
    registerValidatorOp.shape!(body, genesis);
    expect(registerValidatorOp.verify(tx as never, genesis.chainId)).toBe(keys.address);
    // Another chain's node recovers another address: refused as a bad signature.
    expect(() => registerValidatorOp.verify(tx as never, genesis.chainId + 1)).toThrow(/signature/);
    expect(body.bond).toBe(10n ** 24n);
  });

  it('Unbond and Unjail are signed by the validator', async () => {
    const keys = await generateNodeKeys(binding);
    for (const [kind, op] of [
      [TxKind.Unbond, unbondOp],
      [TxKind.Unjail, unjailOp],
    ] as const) {
      const tx = decodeTx(leaveOrReturnTx(keys, kind, 9n), 1 << 20);
      expect(tx.kind).toBe(kind);
      expect((tx.body as UnbondBody).validator).toBe(keys.address);
      expect(op.verify(tx as never, genesis.chainId)).toBe(keys.address);
    }
  });

  it('seed-sign: the operation printed reads back through the governance JSON and passes the seeding checks, signature included', async () => {
    const keys = await generateNodeKeys(binding);
    const json = seedOperationJson(keys, { bondWei: tokensToWei('1000000'), name: 'seeded', endpoint: '127.0.0.1:9070', funder: keys.address });
    const op = operationFromJson(JSON.parse(JSON.stringify(json)));
    expect(() => operationShape(op, genesis)).not.toThrow();
    // Another chain's params: the signature no longer recovers to the validator.
    expect(() => operationShape(op, { ...genesis, chainId: genesis.chainId + 1 })).toThrow(/candidateSignature/);
  });

  it('approve: ApproveValidator signed by the operator key recovers to it', () => {
    const key = devnetOperatorKey();
    const tx = decodeTx(approvalTx(genesis.chainId, key, keyAddress, 2_000_000_000_000, 7n), 1 << 20);
    expect(tx.kind).toBe(TxKind.ApproveValidator);
    expect(approveValidatorOp.verify(tx as never, genesis.chainId)).toBe(key.address);
    expect(key.address).toBe(genesis.owners.operator);
  });

  it('refuses a bond that is not a whole number of tokens', () => {
    expect(() => tokensToWei('1.5')).toThrow(/whole number/);
    expect(() => tokensToWei('-1')).toThrow(/whole number/);
  });
});

describe('the validator command against a real node', () => {
  const devnet = useDevnetNode();
  const home = tempDir('exchain-valops-');
  afterAll(() => home.remove());

  it("prints the node's refusal and exits 1", async () => {
    const made = await runCli(['init', '--home', home.path]);
    expect(made.code, made.stderr).toBe(0);
    const reg = await runCli(['validator', 'register', '--home', home.path, '--api', devnet.url, '--bond', '1000000', '--name', 'seventh', '--endpoint', '127.0.0.1:9060']);
    expect(reg.code).toBe(1);
    expect(reg.stderr).toMatch(/403 NOT_AUTHORIZED: candidate: 0x[0-9a-f]{40} has no approval by the network's operator/);
    const unjail = await runCli(['validator', 'unjail', '--home', home.path, '--api', devnet.url]);
    expect(unjail.code).toBe(1);
    expect(unjail.stderr).toMatch(/403 NOT_VALIDATOR: validator: 0x[0-9a-f]{40} is not a validator/);
    const bad = await runCli(['validator', 'register', '--home', home.path, '--api', devnet.url, '--bond', '10', '--name', 'x y', '--endpoint', 'h:1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 INVALID_VALIDATOR: name/);
  }, 60_000);
});
