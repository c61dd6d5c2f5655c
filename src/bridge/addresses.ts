/**
 * Where the bridge's two contracts land (decision 152): a deploy sends TestUSDC from the
 * deployer's nonce n and ExchangeBridge from n + 1, and a CREATE address is
 * keccak256(rlp([deployer, nonce]))[12:], known before anything is sent. So a genesis can
 * name the addresses before the bridge exists (`genesis new --bridge-deployer`), the
 * contract is then deployed bound to that genesis's hash (decision 150), and the deploy
 * refuses a deployer or nonce that would not give them (deploy.ts).
 */
import { getAddress, getContractAddress, type Address } from 'viem';

/** The USDC and bridge addresses of a deploy by `deployer` starting at its nonce `nonce`. */
export function bridgeAddressesAt(deployer: string, nonce: bigint): { usdc: Address; bridge: Address } {
  const from = getAddress(deployer);
  return { usdc: getContractAddress({ from, nonce }), bridge: getContractAddress({ from, nonce: nonce + 1n }) };
}
