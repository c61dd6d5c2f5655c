/**
 * Software upgrades (contract [C-auth-governance]; decision 77). A SoftwareUpgrade
 * operation, once executed, leaves the meta record `upgrade` {version, height,
 * operationId}: from that height on, only a node of that version or newer executes
 * blocks. An older node stops before the height (it neither proposes, votes nor
 * executes there) with a message naming the version to install; restarted with that
 * version on the same data, it goes on from the same state.
 *
 * Versions are semantic versions (semver 2.0.0: MAJOR.MINOR.PATCH, an optional
 * pre-release, an optional build suffix), compared by semver precedence: numeric parts
 * as integers, a pre-release before its release, the build suffix ignored. Pure: no I/O.
 */
import type { Hex } from '../../util/bytes';
import type { State } from '../state';

/** The scheduled upgrade (meta record `upgrade`). */
export interface UpgradeRecord {
  /** The version a node needs from `height` on. */
  version: string;
  /** The first height only that version (or newer) executes. */
  height: number;
  operationId: Hex;
}

/** Longest version string an operation may name. */
export const UPGRADE_VERSION_MAX_CHARS = 64;

const IDENT = '[0-9A-Za-z-]+';
const SEMVER = new RegExp(`^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+${IDENT}(?:\\.${IDENT})*)?$`);

interface Parsed {
  core: [bigint, bigint, bigint];
  pre: string[];
}

function parse(v: string): Parsed | undefined {
  if (v.length > UPGRADE_VERSION_MAX_CHARS) return undefined;
  const m = SEMVER.exec(v);
  if (!m) return undefined;
  const pre = m[4] === undefined ? [] : m[4].split('.');
  // semver: a numeric pre-release identifier has no leading zero.
  if (pre.some((p) => /^\d+$/.test(p) && p.length > 1 && p.startsWith('0'))) return undefined;
  return { core: [BigInt(m[1]), BigInt(m[2]), BigInt(m[3])], pre };
}

/** True for a semantic version of at most UPGRADE_VERSION_MAX_CHARS characters. */
export function isVersion(v: string): boolean {
  return parse(v) !== undefined;
}

function cmpBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpIdent(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return cmpBig(BigInt(a), BigInt(b));
  if (an !== bn) return an ? -1 : 1; // numeric identifiers rank below alphanumeric ones
  return a < b ? -1 : a > b ? 1 : 0; // ASCII order
}

/** Semver precedence: negative when a < b, 0 when equal (build suffixes ignored), positive when a > b. Throws on a non-version. */
export function compareVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) throw new RangeError(`not a semantic version: ${pa ? b : a}`);
  for (let i = 0; i < 3; i++) {
    const c = cmpBig(pa.core[i], pb.core[i]);
    if (c !== 0) return c;
  }
  // A version with a pre-release ranks below the same version without one.
  if (pa.pre.length === 0 && pb.pre.length === 0) return 0;
  if (pa.pre.length === 0) return 1;
  if (pb.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(pa.pre.length, pb.pre.length); i++) {
    const c = cmpIdent(pa.pre[i], pb.pre[i]);
    if (c !== 0) return c;
  }
  return Math.sign(pa.pre.length - pb.pre.length);
}

export function upgradeOf(state: State): UpgradeRecord | undefined {
  return state.meta.get('upgrade') as UpgradeRecord | undefined;
}

/**
 * Whether a node of `nodeVersion` may take part at `height` (propose, vote, execute)
 * under the scheduled `upgrade`: undefined when it may, else the message it stops with.
 * A node whose own version is not a semantic version counts as older than any.
 */
export function upgradeStopAt(upgrade: UpgradeRecord | undefined, nodeVersion: string, height: number): string | undefined {
  if (!upgrade || height < upgrade.height) return undefined;
  if (isVersion(nodeVersion) && compareVersions(nodeVersion, upgrade.version) >= 0) return undefined;
  return (
    `software upgrade required: from height ${upgrade.height} this chain runs version ${upgrade.version} or newer ` +
    `(governance operation ${upgrade.operationId}); this node is version ${nodeVersion}. ` +
    `Install version ${upgrade.version} and restart it on the same data folder.`
  );
}
