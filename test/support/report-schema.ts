export { reportErrors as reportSchemaErrors } from '../../src/report/load.js';
