/**
 * GET /v1/validators (issue 20; decision 72): every validator the state knows (genesis
 * validators, registered, active, jailed, unbonding, exited, tombstoned), by address
 * ascending, each with its name, endpoint, bond and voting power (wei, decimal strings;
 * power 0 outside the active set), lifecycle status, the heights it missed within the
 * downtime window (src/state/validators/downtime.ts) and the epoch its jail ends (null
 * when not jailed). Read from the executed state at the head.
 */
import type { FastifyPluginAsync } from 'fastify';
import { epochOf } from '../../state/validators/epoch';
import { missedBlocks } from '../../state/validators/downtime';
import { validatorAddresses, validatorRecord } from '../../state/validators/records';
import { activeValidators } from '../../state/validators/set';
import { checkNetwork } from '../common';
import { errorSchema, ok } from '../envelope';
import type { NodeApi } from '../node-api';
import { addr, arr, dec, envelope, EX, int, nullable, obj, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };

const validatorsSchema = obj({
  height: int(),
  epoch: int(),
  downtimeWindowBlocks: int(),
  validators: arr(obj({
    address: addr(),
    name: str(),
    endpoint: str(),
    bond: dec('Wei.'),
    power: dec('Voting power, wei; 0 outside the active set.'),
    status: str('registered, active, jailed, unbonding, exited or tombstoned.'),
    missedBlocks: int('Heights missed within the downtime window.'),
    jailedUntilEpoch: nullable(int()),
  })),
});

export const validatorRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get<{ Querystring: { network?: string } }>('/v1/validators', {
    schema: {
      tags: ['validators'],
      summary: 'Every validator the state knows',
      description: 'By address ascending: name, endpoint, bond and voting power (wei), lifecycle status, missed blocks in the downtime window and the epoch a jail ends. `network`, if given, must name this node\u2019s network (400 WRONG_NETWORK).',
      querystring: { type: 'object', additionalProperties: false, properties: { network: { type: 'string', maxLength: 16 } } },
      response: {
        200: envelope(validatorsSchema, { height: 1024, epoch: 10, downtimeWindowBlocks: 100, validators: [{ address: EX.address, name: 'v0', endpoint: '127.0.0.1:7000', bond: '1000000000000000000', power: '1000000000000000000', status: 'active', missedBlocks: 0, jailedUntilEpoch: null }] }),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(node.genesis, req.query.network);
      const state = node.chain().state;
      const params = state.params();
      const head = state.head().height;
      const set = activeValidators(state).byAddress;
      const validators = validatorAddresses(state).map((address) => {
        const r = validatorRecord(state, address)!;
        return {
          address,
          name: r.name,
          endpoint: r.endpoint,
          bond: String(r.context.bondWei),
          power: String(set.get(address)?.power ?? 0n),
          status: r.status,
          missedBlocks: missedBlocks(state, params, address, head),
          jailedUntilEpoch: r.status === 'jailed' ? r.context.jailedUntilEpoch : null,
        };
      });
      return ok({ height: head, epoch: epochOf(head, params.consensus.epochLengthBlocks), downtimeWindowBlocks: params.consensus.downtimeWindowBlocks, validators });
    },
  });
};
