/**
 * Where a deploy's two contracts land (decision 152), computed before anything is sent:
 * USDC at the deployer's nonce n, the bridge at n + 1, each keccak256(rlp([deployer,
 * nonce]))[12:], here worked out by hand from the RLP rules (nonce 0 is the empty string,
 * below 0x80 one byte, above a length-prefixed string) and compared, and hardhat's first
 * development account at nonces 0 and 1 gives the devnet genesis's addresses.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAddress, keccak256, toRlp, type Hex } from 'viem';
import { bridgeAddressesAt } from '../../src/bridge/addresses';
import { loadGenesisFile } from '../../src/genesis/load';
import { ROOT } from '../helpers/devnet';

const HARDHAT_DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** keccak256(rlp([from, nonce]))[12:], the nonce as RLP's minimal big-endian bytes. */
function createAddress(from: string, nonce: bigint): string {
  const hex = nonce === 0n ? '' : nonce.toString(16);
  const bytes = (hex.length % 2 ? '0' : '') + hex;
  return getAddress(`0x${keccak256(toRlp([from.toLowerCase() as Hex, `0x${bytes}` as Hex])).slice(26)}`);
}

describe('bridgeAddressesAt', () => {
  it("hardhat's first development account at nonce 0 gives the devnet genesis's USDC and bridge", () => {
    const devnet = loadGenesisFile(join(ROOT, 'genesis', 'devnet.json'));
    const got = bridgeAddressesAt(HARDHAT_DEPLOYER, 0n);
    expect({ usdc: got.usdc.toLowerCase(), bridge: got.bridge.toLowerCase() }).toEqual({ usdc: devnet.bridge!.usdc, bridge: devnet.bridge!.address });
    expect(got).toEqual({ usdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3', bridge: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' });
  });

  it('is keccak256(rlp([deployer, nonce]))[12:] at n and n + 1, across the RLP length boundaries, in any letter case', () => {
    const deployer = '0x' + 'a1'.repeat(20);
    for (const n of [0n, 1n, 126n, 127n, 128n, 255n, 256n, 65_535n, 2n ** 40n]) {
      expect(bridgeAddressesAt(deployer, n)).toEqual({ usdc: createAddress(deployer, n), bridge: createAddress(deployer, n + 1n) });
      expect(bridgeAddressesAt(deployer.toUpperCase().replace('0X', '0x'), n)).toEqual(bridgeAddressesAt(deployer, n));
    }
    // Another deployer or another nonce: other addresses.
    expect(bridgeAddressesAt(HARDHAT_DEPLOYER, 1n).usdc).toBe(bridgeAddressesAt(HARDHAT_DEPLOYER, 0n).bridge);
    expect(bridgeAddressesAt(deployer, 0n).usdc).not.toBe(bridgeAddressesAt(HARDHAT_DEPLOYER, 0n).usdc);
  });
});
