"""One task for mini-swe-agent, as its own `mini` command would run it (the builtin mini.yaml
config: one bash tool, commands run in the workspace), with our limits. Reads a JSON argument,
writes a JSON summary: exit status, steps, tokens, the text to match an answer against."""
import json
import sys
import time

from minisweagent.agents.default import DefaultAgent
from minisweagent.config import get_config_from_spec
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.litellm_model import LitellmModel

args = json.loads(sys.argv[1])
config = get_config_from_spec("mini.yaml")
agent_config = {k: v for k, v in config["agent"].items() if k != "mode"}
agent_config.update(step_limit=args["stepLimit"], cost_limit=0, wall_time_limit_seconds=args["wallSeconds"])
model_kwargs = {"api_base": args["baseURL"], "api_key": "local", "max_tokens": args["maxTokens"]}
if args.get("temperature") is not None:
    model_kwargs["temperature"] = args["temperature"]
model = LitellmModel(
    **{**config.get("model", {}), "model_name": "openai/" + args["model"], "model_kwargs": model_kwargs, "cost_tracking": "ignore_errors"}
)
env = LocalEnvironment(**{**config.get("environment", {}), "cwd": args["workspace"]})
agent = DefaultAgent(model, env, **agent_config)
started = time.time()
try:
    result = agent.run(args["prompt"])
    error = None
except Exception as e:  # noqa: BLE001 - reported, not raised: the check still runs
    result = {"exit_status": type(e).__name__, "submission": ""}
    error = str(e)

input_tokens = output_tokens = 0
for message in agent.messages:
    response = message.get("extra", {}).get("response")
    usage = response.get("usage") if isinstance(response, dict) else None
    if usage:
        input_tokens += usage.get("prompt_tokens") or 0
        output_tokens += usage.get("completion_tokens") or 0
assistant = [m for m in agent.messages if m.get("role") == "assistant"]
last_text = (assistant[-1].get("content") or "") if assistant else ""
summary = {
    "exitStatus": result.get("exit_status", ""),
    "submission": result.get("submission", ""),
    "lastText": last_text,
    "steps": agent.n_calls,
    "inputTokens": input_tokens,
    "outputTokens": output_tokens,
    "seconds": time.time() - started,
    "error": error,
}
with open(args["out"], "w") as f:
    json.dump(summary, f)
