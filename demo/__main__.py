"""`python -m demo --port 8001`: run the demo upstream on its own."""

from demo.server import demo_upstream_command

demo_upstream_command()
