// The user's worker on their own task queue, with BareAgentPlugin and their tool; then one of
// their workflows started with their own client, its result printed as the last line.
const { randomUUID } = require('node:crypto');
const { Client, Connection } = require('@temporalio/client');
const { NativeConnection, Worker } = require('@temporalio/worker');
const { BareAgentPlugin } = require('bareagent-temporal/worker');
const { lookupOrder } = require('./tools');

async function main() {
  const address = process.env.TEMPORAL_ADDRESS;
  const taskQueue = 'shop-support';
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    plugins: [new BareAgentPlugin({ model: { baseURL: process.env.MODEL_URL, apiKey: 'not-needed' }, tools: [lookupOrder] })],
  });
  const client = new Client({ connection: await Connection.connect({ address }) });
  const result = await worker.runUntil(
    client.workflow.execute('answerCustomer', {
      taskQueue,
      workflowId: `answer-customer-${randomUUID()}`,
      args: [process.env.ORDER_QUESTION, process.env.MODEL_NAME],
      workflowExecutionTimeout: '2 minutes',
    }),
  );
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
