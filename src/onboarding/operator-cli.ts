/**
 * `npm run operator -- list | approve ADDRESS | reject ADDRESS [--key FILE] [--url URL]`
 * and `npm run operator -- keygen --out FILE` (decision 78): the onboarding operator's
 * review, against a service on this machine (the operator routes answer loopback
 * callers only). Each command prints one JSON line on stdout:
 *   list     {"applicants":[{address, name, endpoint, email, status, applied_ts, approved_ts, rejected_ts, token_issued}, …]}
 *   approve  {"address":"0x…","token":"…","expires_ts":…}   (the token is shown this once)
 *   reject   {"address":"0x…","status":"rejected","token_issued":false,"approved_ts":null}
 *   keygen   {"address":"0x…","key":"FILE"}
 * A refusal prints the service's error envelope's `error` on stderr and exits 1.
 *
 * The CLI asks the service which network it serves (GET /api/operator/network) and signs
 * each request for that chain id (src/onboarding/operator-auth.ts) with the key file
 * (src/onboarding/operator-key.ts); without --key, and only against a devnet service, it
 * signs with the devnet's default operator key.
 */
import { parseFlags, usage, type FlagSpec } from '../cli/args';
import { callEnvelope } from '../cli/envelope-client';
import { applicantAddress } from './fields';
import { signOperatorRequest } from './operator-auth';
import { devnetOperatorKey, readOperatorKey, writeNewOperatorKey, type OperatorKey } from './operator-key';
import { ONBOARDING_PORT_DEFAULT } from './service';

export const OPERATOR_FLAGS = {
  key: { type: 'string', help: 'the operator key file (operator keygen, or a node key file of init; mode 0600); default on devnet: the devnet operator key' },
  url: { type: 'string', default: `http://127.0.0.1:${ONBOARDING_PORT_DEFAULT}`, help: 'the onboarding service (on this machine: the operator routes answer loopback only)' },
  out: { type: 'string', help: 'keygen: the new key file (never overwritten)' },
} satisfies FlagSpec;

const USAGE = `usage: npm run operator -- list | approve ADDRESS | reject ADDRESS [--key FILE] [--url URL]
       npm run operator -- keygen --out FILE
${usage(OPERATOR_FLAGS)}
`;

/** A refusal of the service, carrying its envelope's error. */
export { EnvelopeRefusal as OperatorRefusal } from '../cli/envelope-client';

function call(url: string, method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}): Promise<unknown> {
  return callEnvelope(new URL(path, url).toString(), { method, headers });
}

/** Runs one operator command; returns the JSON line's value (undefined for --help). */
export async function operatorCommand(argv: string[], out: (line: string) => void = (l) => process.stdout.write(l)): Promise<unknown> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return undefined;
  }
  const [command, ...rest] = argv;
  const takesAddress = command === 'approve' || command === 'reject';
  if (!['list', 'approve', 'reject', 'keygen'].includes(command)) throw new Error(`unknown command ${command}\n${USAGE}`);
  if (takesAddress && (rest[0] === undefined || rest[0].startsWith('--'))) throw new Error(`${command} needs the applicant's ADDRESS`);
  const address = takesAddress ? applicantAddress(rest[0]) : undefined;
  const f = parseFlags(takesAddress ? rest.slice(1) : rest, OPERATOR_FLAGS);

  let result: unknown;
  if (command === 'keygen') {
    if (f.out === undefined) throw new Error('keygen needs --out FILE');
    result = { address: writeNewOperatorKey(f.out).address, key: f.out };
  } else {
    if (f.out !== undefined) throw new Error('--out is for keygen only');
    const network = (await call(f.url, 'GET', '/api/operator/network')) as { network: string; chain_id: number; operator: string };
    let key: OperatorKey;
    if (f.key !== undefined) key = readOperatorKey(f.key);
    else if (network.network === 'devnet') key = devnetOperatorKey();
    else throw new Error(`the service serves ${network.network}: give the operator key file (--key FILE)`);
    const signed = async (method: 'GET' | 'POST', path: string) =>
      call(f.url, method, path, signOperatorRequest(key.privateKey, { chainId: network.chain_id, method, path, timestampMs: Date.now() }));
    if (command === 'list') result = await signed('GET', '/api/operator/applicants');
    else result = await signed('POST', `/api/operator/applicants/${address}/${command}`);
  }
  out(`${JSON.stringify(result)}\n`);
  return result;
}
