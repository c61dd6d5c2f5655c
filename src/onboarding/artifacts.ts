/**
 * The three artifacts the onboarding service hands an approved validator (contract
 * [C-onboard-download], [C-onboard-token]; decision 78): the node binary, the network's
 * genesis file and the boot bundle. The routes read them through `ArtifactSource`, so
 * whatever makes one (a file on disk, the boot bundle built in memory by
 * src/onboarding/boot-bundle.ts) plugs in the same way.
 *
 * Each source is read once when the service starts (`loadArtifacts`) and kept in memory
 * with its sha256: the bytes a download serves are the bytes the checksums route
 * publishes, even if the file on disk changes later (restart the service to publish a
 * new build). The binary is the single-file build of `npm run build`
 * (dist/exchange-node.mjs by default); a missing file refuses the start, naming the
 * command. An artifact with no source (today the boot bundle, until its builder is
 * plugged in) is not served: its download answers 503 ARTIFACT_UNAVAILABLE and its
 * checksum is null.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { ARTIFACT_KINDS, type ArtifactKind } from './tokens';

/**
 * Where an artifact comes from: a name for the download (Content-Disposition) and its
 * bytes or how to make them; or a builder giving both (the boot bundle's
 * `buildBootBundle(opts) → {bytes, name}` plugs in as `{ load: () => buildBootBundle(opts) }`).
 * Either is called once, at start; a builder gets the artifacts loaded before it (in
 * ARTIFACT_KINDS order: the boot bundle is built from the binary's and genesis' sha256).
 */
export type ArtifactSource =
  | { name: string; bytes: Uint8Array | (() => Uint8Array | Promise<Uint8Array>) }
  | { load: (loaded: Artifacts) => BuiltArtifact | Promise<BuiltArtifact> };

export interface BuiltArtifact {
  name: string;
  bytes: Uint8Array;
}

/** An artifact as served: its bytes and their sha256 (lower-case hex, no 0x). */
export interface Artifact {
  name: string;
  bytes: Uint8Array;
  sha256: string;
}

export type ArtifactSources = { [K in ArtifactKind]?: ArtifactSource };
export type Artifacts = { [K in ArtifactKind]?: Artifact };

/** The default binary path: the output of `npm run build`. */
export const BINARY_PATH_DEFAULT = 'dist/exchange-node.mjs';

/** A source reading `path` (at load time); `missing` says what to do when the file is absent. */
export function fileSource(path: string, missing?: string): ArtifactSource {
  return {
    name: basename(path),
    bytes: () => {
      if (!existsSync(path)) throw new Error(`${path} does not exist${missing ? `: ${missing}` : ''}`);
      return readFileSync(path);
    },
  };
}

/** The binary's source: the file of `npm run build`, refused at start with that command named when absent. */
export function binarySource(path: string = BINARY_PATH_DEFAULT): ArtifactSource {
  return fileSource(path, 'the onboarding service serves the node binary; build it with `npm run build` (or give --binary FILE)');
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function loadArtifact(source: ArtifactSource, loaded: Artifacts = {}): Promise<Artifact> {
  if ('load' in source) {
    const built = await source.load(loaded);
    return { name: built.name, bytes: built.bytes, sha256: sha256Hex(built.bytes) };
  }
  const bytes = typeof source.bytes === 'function' ? await source.bytes() : source.bytes;
  return { name: source.name, bytes, sha256: sha256Hex(bytes) };
}

/** Reads every given source once; throws the first that cannot be read. */
export async function loadArtifacts(sources: ArtifactSources): Promise<Artifacts> {
  const out: Artifacts = {};
  for (const kind of ARTIFACT_KINDS) {
    const source = sources[kind];
    if (source !== undefined) out[kind] = await loadArtifact(source, out);
  }
  return out;
}
