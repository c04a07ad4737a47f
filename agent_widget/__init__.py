"""agent-widget: step through a reinforcement-learning episode inside a Jupyter notebook."""

__version__ = "0.1.0"
