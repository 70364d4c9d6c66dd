"""The expert policy for the model double: vphone tasks, noise knobs, and a runner."""

from omg_agent.sim.expert.goals import bench_tasks, known_goals, task_for_goal
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.tasks import Task

__all__ = ["ExpertPolicy", "NoiseProfile", "Task", "bench_tasks", "known_goals",
           "task_for_goal"]
