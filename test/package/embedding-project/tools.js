// The user's own tool, written in code: a zod schema for its arguments, a read-only effect.
const { appendFileSync } = require('node:fs');
const { defineTool } = require('bareagent-temporal/worker');
const { z } = require('zod');

exports.lookupOrder = defineTool({
  name: 'lookup_order',
  description: "Looks an order up in the shop's database and says when it ships.",
  parameters: z.object({ orderId: z.string().describe('The order id, such as A-1000') }),
  effect: 'read',
  execute: async ({ orderId }) => {
    appendFileSync(process.env.TOOL_LOG, `${JSON.stringify({ orderId })}\n`);
    return `Order ${orderId} ships on Friday from the Lyon warehouse.`;
  },
});
