import { getOperationAST, parse } from 'graphql';
import { rootFieldNames } from '../src/graphqlDocument';

describe('rootFieldNames', () => {
  it('names the root fields through aliases, inline fragments and fragment spreads, once each', () => {
    const document = parse(`
      mutation M { a: createOffDay(input: $i) { offDay { date } } ...More ... on Mutation { createReservation(input: $j) { reservation { id } } } }
      fragment More on Mutation { updatePaymentRequest(input: $k) { paymentRequest { amount } } ...More }
    `);
    expect([...rootFieldNames(document, getOperationAST(document, 'M')!)].sort()).toEqual(['createOffDay', 'createReservation', 'updatePaymentRequest']);
  });

  it('does not reach into nested selections', () => {
    const document = parse('{ check(id: "x") { __typename items { id } } }');
    expect([...rootFieldNames(document, getOperationAST(document)!)]).toEqual(['check']);
  });
});
