from padtui.cli import entry

entry()
