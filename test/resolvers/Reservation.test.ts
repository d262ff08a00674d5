import DataLoader from 'dataloader';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { Reservation, ReservationPage } from '../../src/resolvers';
import { UpstreamRecord, type Deviation } from '../../src/upstreams/record';
import { ReservationEnvelope, ReservationList } from '../../src/upstreams/reservation/dto';
import { pageMeta, reservationRecord } from '../support/fixtures';
import { recordOrigin, resolveField } from '../support/resolvers';

const CHECK_ID = '6fa459ea-ee8a-3ca4-894e-db77e160355e';

/** A real DataLoader whose batches are recorded, answering each key with a check of that id. */
function checkLoader(batches: string[][]) {
  return new DataLoader<string, { id: string }>(async (ids) => {
    batches.push([...ids]);
    return ids.map((id) => ({ id }));
  });
}

function reservation(fields: Record<string, unknown>, seen: Deviation[] = []) {
  const body = { reservation: { ...reservationRecord(), ...fields } };
  return UpstreamRecord.of(ReservationEnvelope, body, recordOrigin('reservation', '/v1/reservations/:id', seen)).read('reservation');
}

describe('Reservation', () => {
  it('loads its check through the request loader, by the id the reservation links to', async () => {
    const batches: string[][] = [];
    const ctx = { loaders: { checkById: checkLoader(batches) } };
    await expect(resolveField(Reservation.check, reservation({ check: { id: CHECK_ID } }), {}, ctx)).resolves.toEqual({ id: CHECK_ID });
    expect(batches).toEqual([[CHECK_ID]]);
  });

  it('is null without loading anything when the reservation has no check', () => {
    const batches: string[][] = [];
    expect(resolveField(Reservation.check, reservation({ check: null }), {}, { loaders: { checkById: checkLoader(batches) } })).toBeNull();
    expect(batches).toEqual([]);
  });

  it('fails the field alone, naming the upstream field, when the check has no usable id', () => {
    const seen: Deviation[] = [];
    const record = reservation({ check: { id: 'not-a-uuid' } }, seen);
    let thrown: unknown;
    try {
      resolveField(Reservation.check, record, {}, { loaders: { checkById: checkLoader([]) } });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({ failure: 'bad_response' });
    expect(seen.map((d) => d.field)).toEqual(['reservation.check.id']);
  });
});

describe('ReservationPage', () => {
  it('gives the page its reservations as records and its meta as the page info', () => {
    const body = { reservations: [reservationRecord(), reservationRecord()], meta: pageMeta({ total_count: 2 }) };
    const page = UpstreamRecord.of(ReservationList, body, recordOrigin('reservation', '/v1/reservations'));
    const nodes = resolveField(ReservationPage.nodes, page);
    expect(Array.isArray(nodes) && nodes.length).toBe(2);
    expect(resolveField(ReservationPage.pageInfo, page)).toBeInstanceOf(UpstreamRecord);
  });
});
