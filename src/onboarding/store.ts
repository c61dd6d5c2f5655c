/**
 * The onboarding service's own LevelDB (classic-level), in its data folder: one record
 * per applicant (src/onboarding/applicants.ts `ApplicantRecord`, JSON under
 * `applicant:<lower-case address>`) and the network the folder belongs to (`meta:network`:
 * name, chain id, genesis hash), so a folder made for one network is never served as
 * another's. Every write goes through one queue, so the read-step-write of two
 * applications of the same address cannot interleave; each write is synced, so a
 * restarted service finds every answer it gave.
 */
import { ClassicLevel } from 'classic-level';
import { applyApplication, statusView, type ApplicantRecord, type StatusView } from './applicants';
import type { OnboardingBook } from './book';
import type { Application } from './fields';

export interface NetworkBinding {
  network: string;
  chainId: number;
  genesisHash: string;
}

const APPLICANT = 'applicant:';
const META_NETWORK = 'meta:network';

export class OnboardingStore implements OnboardingBook {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: ClassicLevel<string, string>,
    private readonly nowMs: () => number,
  ) {}

  /** Opens (or creates) the store in `dir` for `binding`; refuses a folder of another network. */
  static async open(dir: string, binding: NetworkBinding, nowMs: () => number = Date.now): Promise<OnboardingStore> {
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
    return new OnboardingStore(db, nowMs);
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

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.db.close();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
