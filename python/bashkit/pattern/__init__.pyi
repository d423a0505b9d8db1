from . import sandbox_hook as sandbox_hook
