"""PyTorch's small helpers that nn.functional exposes: boolean_dispatch (one name, two functions
chosen by a bool argument) and assert_int_or_pair."""


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls if_true or if_false by the bool argument arg_name (or positional
    arg_index), default when it is not given."""

    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    fn.__module__ = module_name
    fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name, message):
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)
