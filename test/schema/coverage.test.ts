import { buildSchema, isInputObjectType, isObjectType, type GraphQLNamedType } from 'graphql';
import { z } from 'zod';
import { CreateCalendarReservationArgs, CreateOffDayArgs, CreateReservationArgs, UpdatePaymentRequestArgs } from '../../src/inputs/reservation';
import { resolvers } from '../../src/resolvers';
import { snakeCase } from '../../src/naming';
import { loadTypeDefs } from '../../src/schema';
import * as pos from '../../src/upstreams/pos/dto';
import * as res from '../../src/upstreams/reservation/dto';

const schema = buildSchema(loadTypeDefs());

/** The zod object behind a (nullable, optional, array, piped) schema. */
function objectOf(s: z.ZodType): z.ZodObject {
  let cur: unknown = s;
  for (let i = 0; i < 10; i++) {
    if (cur instanceof z.ZodObject) return cur;
    const def = (cur as { def: Record<string, unknown> }).def;
    cur = def.innerType ?? def.element ?? def.in;
  }
  throw new Error('no object inside');
}
const field = (s: z.ZodType, key: string) => objectOf(objectOf(s).shape[key] as z.ZodType);

/** Each GraphQL output type whose parent is an upstream record, with the zod schema of that record. */
const outputs: Record<string, z.ZodType> = {
  Check: pos.Check,
  Employee: pos.Employee,
  Metafield: pos.Metafield,
  Customer: pos.Customer,
  CustomerAccountDetail: field(pos.Customer, 'account_detail'),
  Tag: field(pos.Customer, 'tags'),
  RevenueCenter: field(pos.Check, 'revenue_center'),
  Table: field(pos.Check, 'table'),
  SalesChannel: field(pos.Check, 'sales_channel'),
  Delivery: pos.Delivery,
  Tax: pos.Tax,
  CheckServiceCharge: pos.CheckServiceCharge,
  CheckSummary: pos.CheckSummary,
  CheckDiscount: pos.CheckDiscount,
  CheckPayment: pos.CheckPayment,
  Device: field(pos.CheckPayment, 'device'),
  CheckItem: pos.CheckItem,
  CheckItemSummary: field(pos.CheckItem, 'summary'),
  Item: field(pos.CheckItem, 'item'),
  CheckOffer: pos.CheckOffer,
  Reservation: res.Reservation,
  ReservationCustomer: res.ReservationCustomer,
  OffDay: res.OffDayBody,
  OffDayTranslation: field(res.OffDayBody, 'translations'),
  PaymentRequest: res.PaymentRequestBody,
};

const inputs: Record<string, z.ZodType> = {
  CreateReservationInput: field(CreateReservationArgs, 'input'),
  ReservationCustomerInput: field(field(CreateReservationArgs, 'input'), 'customer'),
  CreateCalendarReservationInput: field(CreateCalendarReservationArgs, 'input'),
  CreateOffDayInput: field(CreateOffDayArgs, 'input'),
  OffDayTranslationInput: field(field(CreateOffDayArgs, 'input'), 'translations'),
  UpdatePaymentRequestInput: field(UpdatePaymentRequestArgs, 'input'),
};

const explicit = resolvers as Record<string, Record<string, unknown> | undefined>;

describe('schema coverage', () => {
  it.each(Object.keys(outputs))('resolves every field of %s from its upstream record or a resolver', (name) => {
    const type = schema.getType(name) as GraphQLNamedType;
    expect(isObjectType(type)).toBe(true);
    if (!isObjectType(type)) return;
    const keys = Object.keys(objectOf(outputs[name]).shape);
    const unresolved = Object.keys(type.getFields()).filter((f) => !explicit[name]?.[f] && !keys.includes(snakeCase(f)) && !keys.includes(f));
    expect(unresolved).toEqual([]);
  });

  it.each(Object.keys(outputs))('exposes every field of the upstream record behind %s', (name) => {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
    const fields = Object.keys(type.getFields()).map(snakeCase);
    const renamed = Object.keys(explicit[name] ?? {});
    const hidden = Object.keys(objectOf(outputs[name]).shape).filter((k) => !fields.includes(k) && !renamed.some((r) => k.endsWith(snakeCase(r))));
    expect(hidden).toEqual([]);
  });

  it.each(Object.keys(inputs))('validates every field of %s (nothing is dropped on the way upstream)', (name) => {
    const type = schema.getType(name);
    if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
    const keys = Object.keys(objectOf(inputs[name]).shape);
    expect(Object.keys(type.getFields()).sort()).toEqual(keys.sort());
  });

  it('describes every type, field and argument', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) undocumented.push(type.name);
      if (isObjectType(type) || isInputObjectType(type)) {
        for (const f of Object.values(type.getFields())) {
          if (!f.description) undocumented.push(`${type.name}.${f.name}`);
          for (const a of 'args' in f ? f.args : []) if (!a.description) undocumented.push(`${type.name}.${f.name}(${a.name})`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});
