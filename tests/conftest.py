"""The suite opens no windows: matplotlib draws to memory (render_mode="human" then prints its
text table), whatever display the machine has."""

import os

os.environ["MPLBACKEND"] = "Agg"
