/**
 * The onboarding service's own LevelDB (classic-level), in its data folder: one record
 * per applicant (src/onboarding/applicants.ts `ApplicantRecord`, JSON under
 * `applicant:<lower-case address>`) and the network the folder belongs to (`meta:network`:
 * name, chain id, genesis hash), so a folder made for one network is never served as
 * another's. Every write goes through one queue, so the read-step-write of two
 * applications of the same address cannot interleave; each write is synced, so a
 * restarted service finds every answer it gave.
 *
 * The operator's review (decision 78) adds two kinds of record: `token:<sha256 of the
 * token>` (src/onboarding/tokens.ts `TokenRecord`: the address, expiry and per-artifact
 * use; the token itself is never stored), written in one synced batch with the
 * approved applicant's record, and `opnonce:<nonce>` (the signed request's timestamp),
 * the operator nonces seen, kept while their timestamp could still pass the window.
 */
import { ClassicLevel } from 'classic-level';
import { ApiError } from '../api/envelope';
import { applicantView, applyApplication, reviewApplicant, statusView, type ApplicantRecord, type ApplicantView, type StatusView } from './applicants';
import type { DownloadBook, DownloadClaim, OnboardingBook, OperatorBook } from './book';
import type { Application } from './fields';
import { OPERATOR_WINDOW_MS_DEFAULT } from './operator-auth';
import { downloadRefusal, newToken, newTokenRecord, tokenHash, TOKEN_LIFETIME_MS_DEFAULT, TOKEN_PATTERN, type ArtifactKind, type TokenRecord } from './tokens';

export interface NetworkBinding {
  network: string;
  chainId: number;
  genesisHash: string;
}

const APPLICANT = 'applicant:';
const META_NETWORK = 'meta:network';
const TOKEN = 'token:';
const OPERATOR_NONCE = 'opnonce:';

/** How long tokens live and how old an operator request may be (defaults: 24 hours, 5 minutes). */
export interface StoreTimes {
  tokenLifetimeMs?: number;
  operatorWindowMs?: number;
}

export class OnboardingStore implements OnboardingBook, OperatorBook, DownloadBook {
  private queue: Promise<unknown> = Promise.resolve();
  /** Downloads in progress, by token hash and artifact: the next claim of the same waits for it. */
  private readonly downloads = new Map<string, Promise<void>>();
  private readonly tokenLifetimeMs: number;
  private readonly operatorWindowMs: number;

  private constructor(
    private readonly db: ClassicLevel<string, string>,
    private readonly nowMs: () => number,
    times: StoreTimes,
  ) {
    this.tokenLifetimeMs = times.tokenLifetimeMs ?? TOKEN_LIFETIME_MS_DEFAULT;
    this.operatorWindowMs = times.operatorWindowMs ?? OPERATOR_WINDOW_MS_DEFAULT;
  }

  /** Opens (or creates) the store in `dir` for `binding`; refuses a folder of another network. */
  static async open(dir: string, binding: NetworkBinding, nowMs: () => number = Date.now, times: StoreTimes = {}): Promise<OnboardingStore> {
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
    return new OnboardingStore(db, nowMs, times);
  }

  async record(address: string): Promise<ApplicantRecord | undefined> {
    const raw = await this.db.get(APPLICANT + address);
    return raw === undefined ? undefined : (JSON.parse(raw) as ApplicantRecord);
  }

  apply(application: Application): Promise<ApplicantRecord> {
    return this.serial(async () => {
      const next = applyApplication(await this.record(application.address), application, this.nowMs());
      await this.db.put(APPLICANT + application.address, JSON.stringify(next), { sync: true });
      return next;
    });
  }

  async status(address: string): Promise<StatusView> {
    return statusView(address, await this.record(address));
  }

  /** Every stored record, in address order. */
  async records(): Promise<ApplicantRecord[]> {
    const out: ApplicantRecord[] = [];
    for await (const raw of this.db.values({ gte: APPLICANT, lt: `${APPLICANT}\xff` })) out.push(JSON.parse(raw) as ApplicantRecord);
    return out;
  }

  async applicants(): Promise<ApplicantView[]> {
    return (await this.records()).map(applicantView);
  }

  approve(address: string): Promise<{ address: string; token: string; expires_ts: number }> {
    return this.serial(async () => {
      const now = this.nowMs();
      const next = reviewApplicant(await this.record(address), address, 'APPROVE', now);
      const token = newToken();
      const record = newTokenRecord(address, now, this.tokenLifetimeMs);
      await this.db.batch(
        [
          { type: 'put', key: APPLICANT + address, value: JSON.stringify(next) },
          { type: 'put', key: TOKEN + tokenHash(token), value: JSON.stringify(record) },
        ],
        { sync: true },
      );
      return { address, token, expires_ts: record.expiresTs };
    });
  }

  reject(address: string): Promise<StatusView> {
    return this.serial(async () => {
      const next = reviewApplicant(await this.record(address), address, 'REJECT', this.nowMs());
      await this.db.put(APPLICANT + address, JSON.stringify(next), { sync: true });
      return statusView(address, next);
    });
  }

  useOperatorNonce(nonce: string, timestampMs: number): Promise<void> {
    return this.serial(async () => {
      if ((await this.db.get(OPERATOR_NONCE + nonce)) !== undefined) {
        throw new ApiError(409, 'NONCE_USED', `operator nonce ${nonce} was already used; every signed request takes a fresh one`);
      }
      // A nonce whose timestamp is out of the window can no longer pass the clock check: forget it.
      const oldest = this.nowMs() - 2 * this.operatorWindowMs;
      const stale: string[] = [];
      for await (const [key, ts] of this.db.iterator({ gte: OPERATOR_NONCE, lt: `${OPERATOR_NONCE}\xff` })) if (Number(ts) < oldest) stale.push(key);
      await this.db.batch([{ type: 'put', key: OPERATOR_NONCE + nonce, value: String(timestampMs) }, ...stale.map((key) => ({ type: 'del' as const, key }))], { sync: true });
    });
  }

  /** The record of a token, by the token's text (undefined: never issued). */
  async tokenRecord(token: string): Promise<TokenRecord | undefined> {
    const raw = await this.db.get(TOKEN + tokenHash(token));
    return raw === undefined ? undefined : (JSON.parse(raw) as TokenRecord);
  }

  /** Every stored token record, by hash (tests read what the store keeps). */
  async tokenRecords(): Promise<Array<[string, TokenRecord]>> {
    const out: Array<[string, TokenRecord]> = [];
    for await (const [key, raw] of this.db.iterator({ gte: TOKEN, lt: `${TOKEN}\xff` })) out.push([key.slice(TOKEN.length), JSON.parse(raw) as TokenRecord]);
    return out;
  }

  async claimDownload(token: string, artifact: ArtifactKind): Promise<DownloadClaim> {
    const key = `${TOKEN_PATTERN.test(token) ? tokenHash(token) : 'malformed'}:${artifact}`;
    while (this.downloads.has(key)) await this.downloads.get(key);
    // Taken before the first await below, so no second claim slips between check and hold.
    let release!: () => void;
    this.downloads.set(key, new Promise<void>((r) => (release = r)));
    const done = () => {
      this.downloads.delete(key);
      release();
    };
    let record: TokenRecord | undefined;
    try {
      record = TOKEN_PATTERN.test(token) ? await this.tokenRecord(token) : undefined;
      const refusal = downloadRefusal(token, record, artifact, this.nowMs());
      if (refusal !== null) throw new ApiError(refusal.status, refusal.code, refusal.message);
    } catch (err) {
      done();
      throw err;
    }
    const hash = tokenHash(token);
    return {
      address: record!.address,
      finish: async (served: boolean) => {
        try {
          if (!served) return;
          await this.serial(async () => {
            const raw = await this.db.get(TOKEN + hash);
            if (raw === undefined) throw new Error(`token record ${hash} vanished during a download`);
            const now: TokenRecord = JSON.parse(raw);
            now.used[artifact] = this.nowMs();
            await this.db.put(TOKEN + hash, JSON.stringify(now), { sync: true });
          });
        } finally {
          done();
        }
      },
    };
  }

  async close(): Promise<void> {
    while (this.downloads.size > 0) await Promise.all([...this.downloads.values()]);
    await this.queue.catch(() => undefined);
    await this.db.close();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
