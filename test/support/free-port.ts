/** Tests take free ports from the product's testing helpers. */
export { freePort } from '../../src/testing/free-port';
