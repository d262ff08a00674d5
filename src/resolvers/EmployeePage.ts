import type { EmployeePageResolvers } from '../generated/graphql';

/** POS `GET /employees` answers `{"employees": […], "meta": {…}}`; each half is read only when selected. */
export const EmployeePage: EmployeePageResolvers = {
  nodes: (p) => p.read('employees'),
  pageInfo: (p) => p.read('meta'),
};
