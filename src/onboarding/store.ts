/**
 * The onboarding service's own LevelDB (classic-level), in its data folder: one record
 * per applicant (src/onboarding/applicants.ts `ApplicantRecord`, JSON under
 * `applicant:<lower-case address>`) and the network the folder belongs to (`meta:network`:
 * name, chain id, genesis hash), so a folder made for one network is never served as
 * another's. Each write is one synced batch, so a restarted service finds every answer
 * it gave.
 *
 * The operator's review (decision 78) adds two kinds of record: `token:<sha256 of the
 * token>` (src/onboarding/tokens.ts `TokenRecord`: the address, expiry and per-artifact
 * use; the token itself is never stored), written in one synced batch with the
 * approved applicant's record, and `opnonce:<nonce>` (the signed request's timestamp),
 * the operator nonces seen, kept while their timestamp could still pass the window.
 *
 * This file is the on-disk format and nothing else: it reads records and writes batches.
 * What a write means (an application stepped through the machine, an approval and its
 * token, a nonce, a download marked) is the service's actors' (actors/onboarding/): the
 * store actor owns the one open store and is its only writer, one message at a time, so
 * the review's read-step-write of two applications of the same address cannot
 * interleave.
 */
import { ClassicLevel } from 'classic-level';
import type { ApplicantRecord } from './applicants';
import { tokenHash, type TokenRecord } from './tokens';

export interface NetworkBinding {
  network: string;
  chainId: number;
  genesisHash: string;
}

const APPLICANT = 'applicant:';
const META_NETWORK = 'meta:network';
const TOKEN = 'token:';
const OPERATOR_NONCE = 'opnonce:';

/** One change of a batch: an applicant's record, a token's record (by the token's hash), an operator nonce seen or forgotten. */
export type StoreWrite =
  | { put: 'applicant'; record: ApplicantRecord }
  | { put: 'token'; hash: string; record: TokenRecord }
  | { put: 'nonce'; nonce: string; timestampMs: number }
  | { del: 'nonce'; nonce: string };

type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

function op(w: StoreWrite): Op {
  if ('del' in w) return { type: 'del', key: OPERATOR_NONCE + w.nonce };
  switch (w.put) {
    case 'applicant':
      return { type: 'put', key: APPLICANT + w.record.application.address, value: JSON.stringify(w.record) };
    case 'token':
      return { type: 'put', key: TOKEN + w.hash, value: JSON.stringify(w.record) };
    case 'nonce':
      return { type: 'put', key: OPERATOR_NONCE + w.nonce, value: String(w.timestampMs) };
  }
}

export class OnboardingStore {
  private constructor(private readonly db: ClassicLevel<string, string>) {}

  /** Opens (or creates) the store in `dir` for `binding`; refuses a folder of another network. */
  static async open(dir: string, binding: NetworkBinding): Promise<OnboardingStore> {
    const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await db.open();
    try {
      const stored = await db.get(META_NETWORK);
      if (stored === undefined) await db.put(META_NETWORK, JSON.stringify(binding), { sync: true });
      else {
        const was = JSON.parse(stored) as NetworkBinding;
        if (was.network !== binding.network || was.chainId !== binding.chainId || was.genesisHash !== binding.genesisHash) {
          throw new Error(
            `onboarding data folder ${dir} belongs to ${was.network} (chain ${was.chainId}, genesis ${was.genesisHash}), not ${binding.network} (chain ${binding.chainId}, genesis ${binding.genesisHash})`,
          );
        }
      }
    } catch (err) {
      await db.close();
      throw err;
    }
    return new OnboardingStore(db);
  }

  async record(address: string): Promise<ApplicantRecord | undefined> {
    const raw = await this.db.get(APPLICANT + address);
    return raw === undefined ? undefined : (JSON.parse(raw) as ApplicantRecord);
  }

  /** Every stored record, in address order. */
  async records(): Promise<ApplicantRecord[]> {
    const out: ApplicantRecord[] = [];
    for await (const raw of this.db.values({ gte: APPLICANT, lt: `${APPLICANT}\xff` })) out.push(JSON.parse(raw) as ApplicantRecord);
    return out;
  }

  /** The record of a token by its hash (undefined: never issued). */
  async tokenRecordByHash(hash: string): Promise<TokenRecord | undefined> {
    const raw = await this.db.get(TOKEN + hash);
    return raw === undefined ? undefined : (JSON.parse(raw) as TokenRecord);
  }

  /** The record of a token, by the token's text. */
  tokenRecord(token: string): Promise<TokenRecord | undefined> {
    return this.tokenRecordByHash(tokenHash(token));
  }

  /** Every stored token record, by hash. */
  async tokenRecords(): Promise<Array<[string, TokenRecord]>> {
    const out: Array<[string, TokenRecord]> = [];
    for await (const [key, raw] of this.db.iterator({ gte: TOKEN, lt: `${TOKEN}\xff` })) out.push([key.slice(TOKEN.length), JSON.parse(raw) as TokenRecord]);
    return out;
  }

  /** Every operator nonce kept, with its request's timestamp (few: only those still inside twice the window). */
  async nonces(): Promise<Array<[string, number]>> {
    const out: Array<[string, number]> = [];
    for await (const [key, ts] of this.db.iterator({ gte: OPERATOR_NONCE, lt: `${OPERATOR_NONCE}\xff` })) out.push([key.slice(OPERATOR_NONCE.length), Number(ts)]);
    return out;
  }

  /** Writes `writes` as one synced batch: all or none. */
  async write(writes: readonly StoreWrite[]): Promise<void> {
    await this.db.batch(writes.map(op), { sync: true });
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
