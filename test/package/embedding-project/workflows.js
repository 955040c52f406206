// The user's workflows file: their own workflow, and agentRun re-exported so their worker runs it.
const { executeChild, workflowInfo } = require('@temporalio/workflow');
const { agentRun } = require('bareagent-temporal/workflow');

exports.agentRun = agentRun;

/** Answers a customer's question with an agent run as a child workflow. */
exports.answerCustomer = async function answerCustomer(question, model) {
  const result = await executeChild(agentRun, {
    workflowId: `${workflowInfo().workflowId}-agent`,
    args: [{ prompt: question, model }],
  });
  return { question, answer: result.text };
};
